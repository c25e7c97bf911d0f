package io.gshare.activities.cluster;

import io.fabric8.kubernetes.api.model.ContainerStateWaiting;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.gshare.activities.cluster.model.PrepullObjects;
import io.gshare.workflows.image.ImagePullClusterActivities;
import io.gshare.workflows.image.ImagePullRequest;
import io.gshare.workflows.image.ImagePullResult;
import io.gshare.workflows.image.NodePull;
import io.gshare.workflows.kube.Labels;
import io.gshare.workflows.session.PodPhase;
import io.temporal.activity.Activity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pulls an image onto nodes of the worker's own cluster with one short pod per node ({@link PrepullObjects}),
 * skipping nodes whose {@code status.images} already list it, and deletes each pod once it has answered.
 */
public class ImagePullClusterActivitiesImpl implements ImagePullClusterActivities {

  private static final Logger log = LoggerFactory.getLogger(ImagePullClusterActivitiesImpl.class);
  /** Container waiting reasons that mean the image will not arrive without someone acting. */
  static final Set<String> PULL_FAILURES = Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName",
      "ErrImageNeverPull", "RegistryUnavailable", "SignatureValidationFailed");
  /** Waiting reasons after the image is on disk: the no-op command could not start, the pull counted. */
  static final Set<String> START_FAILURES = Set.of("CreateContainerError", "RunContainerError", "StartError");

  private final KubernetesClient client;
  private final Duration pollEvery;
  private final Duration perNode;

  /**
   * @param pollEvery the pause between looks at the pods
   * @param perNode how long a node may take to pull before it is reported failed (still pulling)
   */
  public ImagePullClusterActivitiesImpl(KubernetesClient client, Duration pollEvery, Duration perNode) {
    this.client = client;
    this.pollEvery = pollEvery;
    this.perNode = perNode;
  }

  public ImagePullClusterActivitiesImpl(KubernetesClient client) {
    this(client, Duration.ofSeconds(3), Duration.ofMinutes(45));
  }

  @Override
  public ImagePullResult pull(ImagePullRequest request) {
    String reference = request.reference();
    Map<String, NodePull> results = new LinkedHashMap<>();
    Map<String, String> waiting = new LinkedHashMap<>();
    boolean namespaceReady = false;
    for (String host : request.hostnames()) {
      Node node = client.nodes().withName(host).get();
      String name = PrepullObjects.podName(reference, host);
      Pod earlier = pods().withName(name).get();
      if (node == null) {
        results.put(host, NodePull.failed(host, "no node " + host + " in the cluster"));
      } else if (earlier == null && PrepullObjects.present(node, reference)) {
        results.put(host, NodePull.alreadyPresent(host));
      } else {
        if (earlier == null) {
          if (!namespaceReady) {
            ensureNamespace();
            namespaceReady = true;
          }
          create(PrepullObjects.pod(request.imageId(), reference, host));
        }
        waiting.put(host, name);
      }
    }
    log.info("pre-pull of {}: {} node(s) to pull, {} already answered", reference, waiting.size(), results.size());
    long deadline = System.currentTimeMillis() + perNode.toMillis();
    while (!waiting.isEmpty()) {
      for (var it = waiting.entrySet().iterator(); it.hasNext(); ) {
        var entry = it.next();
        Pod pod = pods().withName(entry.getValue()).get();
        NodePull outcome = pod == null ? NodePull.failed(entry.getKey(), "its pull pod was deleted by someone else")
            : outcome(entry.getKey(), pod);
        if (outcome != null) {
          results.put(entry.getKey(), outcome);
          pods().withName(entry.getValue()).withGracePeriod(0).delete();
          log.info("pre-pull of {} on {}: {}", reference, entry.getKey(), outcome);
          it.remove();
        }
      }
      if (waiting.isEmpty()) {
        break;
      }
      if (System.currentTimeMillis() >= deadline) {
        waiting.forEach((host, name) -> {
          Pod pod = pods().withName(name).get();
          results.put(host, NodePull.failed(host, "not pulled within " + perNode.toMinutes() + " min"
              + (pod == null ? "" : " (" + stillDoing(pod) + ")")));
          pods().withName(name).withGracePeriod(0).delete();
        });
        break;
      }
      Activity.getExecutionContext().heartbeat((request.hostnames().size() - waiting.size()) + " of "
          + request.hostnames().size() + " node(s) answered");
      try {
        Thread.sleep(pollEvery.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw Activity.wrap(e);
      }
    }
    List<NodePull> ordered = new ArrayList<>();
    request.hostnames().forEach(h -> ordered.add(results.get(h)));
    return new ImagePullResult(ordered);
  }

  /** What the pod says about the pull, or null while it still runs. */
  static NodePull outcome(String host, Pod pod) {
    PodPhase phase = pod.getStatus() == null ? null : PodPhase.of(pod.getStatus().getPhase());
    if (phase == PodPhase.SUCCEEDED) {
      return NodePull.pulled(host);
    }
    for (ContainerStatus container : containers(pod)) {
      ContainerStateWaiting waiting = container.getState() == null ? null : container.getState().getWaiting();
      if (waiting != null && PULL_FAILURES.contains(waiting.getReason())) {
        return NodePull.failed(host, waiting.getReason() + (waiting.getMessage() == null ? "" : ": " + waiting.getMessage()));
      }
      if (waiting != null && START_FAILURES.contains(waiting.getReason())) {
        return new NodePull(host, NodePull.PULLED, "the no-op command did not start (" + waiting.getReason() + ")");
      }
    }
    if (phase == PodPhase.FAILED) {
      boolean onDisk = containers(pod).stream().anyMatch(c -> c.getImageID() != null && !c.getImageID().isEmpty());
      if (onDisk) {
        return new NodePull(host, NodePull.PULLED, "the no-op command failed");
      }
      // Evicted under disk pressure, or refused by the kubelet's admission (OutOfDisk and the like).
      return NodePull.failed(host, (pod.getStatus().getReason() == null ? "pod failed" : pod.getStatus().getReason())
          + (pod.getStatus().getMessage() == null ? "" : ": " + pod.getStatus().getMessage()));
    }
    return null;
  }

  private static String stillDoing(Pod pod) {
    for (ContainerStatus container : containers(pod)) {
      if (container.getState() != null && container.getState().getWaiting() != null) {
        ContainerStateWaiting w = container.getState().getWaiting();
        return w.getReason() + (w.getMessage() == null ? "" : ": " + w.getMessage());
      }
    }
    return pod.getStatus() == null || pod.getStatus().getPhase() == null ? "not started" : pod.getStatus().getPhase();
  }

  private static List<ContainerStatus> containers(Pod pod) {
    return pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null ? List.of()
        : pod.getStatus().getContainerStatuses();
  }

  private NonNamespaceOperation<Pod, PodList,
      PodResource> pods() {
    return client.pods().inNamespace(PrepullObjects.NAMESPACE);
  }

  /**
   * The sessions' namespace the pull pods live in, applied as a session's start applies it: a pre-pull may come
   * before the cluster's first session, and a real apiserver refuses a pod in a namespace that does not exist.
   */
  private void ensureNamespace() {
    client.resource(new NamespaceBuilder().withNewMetadata()
        .withName(PrepullObjects.NAMESPACE).withLabels(Labels.managedByGshare().toMap())
        .endMetadata().build()).fieldManager(SessionClusterActivitiesImpl.FIELD_MANAGER).forceConflicts().serverSideApply();
  }

  private void create(Pod pod) {
    try {
      pods().resource(pod).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      // Made by an earlier attempt a moment ago: wait for it as for our own.
    }
  }
}
