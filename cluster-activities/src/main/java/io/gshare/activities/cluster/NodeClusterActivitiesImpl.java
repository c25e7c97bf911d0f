package io.gshare.activities.cluster;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gshare.workflows.kube.Annotations;
import io.gshare.workflows.node.EvictionRequest;
import io.gshare.workflows.node.EvictionResult;
import io.gshare.workflows.node.NodeClusterActivities;
import io.temporal.activity.Activity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Cordon, eviction and HAMi's device cordon on the worker's own cluster, with the in-cluster client. */
public class NodeClusterActivitiesImpl implements NodeClusterActivities {

  private static final Logger log = LoggerFactory.getLogger(NodeClusterActivitiesImpl.class);

  private final KubernetesClient client;
  /**
   * The same connection without fabric8's own retry of a 429 (about 20 s of backoff per call): a refused
   * eviction comes back at once, and this activity retries on its own schedule, heartbeating.
   */
  private final KubernetesClient evictions;
  private final Duration retryEvery;

  /** @param retryEvery the pause between eviction passes while pods remain (refused, or still terminating) */
  public NodeClusterActivitiesImpl(KubernetesClient client, Duration retryEvery) {
    this.client = client;
    this.evictions = new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder(client.getConfiguration()).withRequestRetryBackoffLimit(0).build())
        .build();
    this.retryEvery = retryEvery;
  }

  public NodeClusterActivitiesImpl(KubernetesClient client) {
    this(client, Duration.ofSeconds(2));
  }

  @Override
  public void setUnschedulable(String hostname, boolean unschedulable) {
    // A JSON merge patch of one field, as kubectl cordon's strategic merge patch: null removes it.
    String patch = "{\"spec\":{\"unschedulable\":" + (unschedulable ? "true" : "null") + "}}";
    client.nodes().withName(hostname).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    log.info("node {}: {}", hostname, unschedulable ? "cordoned" : "uncordoned");
  }

  @Override
  public EvictionResult evictPods(EvictionRequest request) {
    Set<String> evicted = new LinkedHashSet<>();
    while (true) {
      List<Pod> pods = client.pods().inAnyNamespace().withField("spec.nodeName", request.hostname()).list().getItems();
      int daemonSetPods = 0;
      Map<String, String> left = new LinkedHashMap<>();
      for (Pod pod : pods) {
        if (ownedByDaemonSet(pod) || isMirror(pod)) {
          daemonSetPods++;
          continue;
        }
        String name = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
        if (pod.getMetadata().getDeletionTimestamp() != null) {
          left.put(name, "still terminating");
          continue;
        }
        if (evictions.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).evict()) {
          evicted.add(name);
          left.put(name, "evicted, terminating");
        } else {
          left.put(name, "eviction refused by its PodDisruptionBudget (429)");
        }
      }
      if (left.isEmpty()) {
        log.info("node {}: drained ({} pod(s) evicted, {} DaemonSet pod(s) stay)", request.hostname(), evicted.size(),
            daemonSetPods);
        return new EvictionResult(new ArrayList<>(evicted), daemonSetPods, List.of());
      }
      if (System.currentTimeMillis() >= request.deadlineEpochMillis()) {
        List<String> blocked = left.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).toList();
        log.warn("node {}: deadline reached with {} pod(s) left: {}", request.hostname(), blocked.size(), blocked);
        return new EvictionResult(new ArrayList<>(evicted), daemonSetPods, blocked);
      }
      Activity.getExecutionContext().heartbeat(left.size() + " pod(s) left");
      try {
        Thread.sleep(retryEvery.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw Activity.wrap(e);
      }
    }
  }

  @Override
  public void setDeviceCordon(String hostname, List<String> uuids) {
    String value = uuids == null || uuids.isEmpty() ? "null" : "\"" + String.join(",", uuids) + "\"";
    client.nodes().withName(hostname).patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"metadata\":{\"annotations\":{\"" + Annotations.HAMI_DEVICE_CORDON + "\":" + value + "}}}");
    log.info("node {}: {} = {}", hostname, Annotations.HAMI_DEVICE_CORDON, uuids);
  }

  private static boolean ownedByDaemonSet(Pod pod) {
    List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
    return owners != null && owners.stream().anyMatch(o -> "DaemonSet".equals(o.getKind()));
  }

  private static boolean isMirror(Pod pod) {
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    return annotations != null && annotations.containsKey(Annotations.MIRROR_POD);
  }
}
