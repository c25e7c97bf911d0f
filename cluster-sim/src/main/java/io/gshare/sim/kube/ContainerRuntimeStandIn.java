package io.gshare.sim.kube;

import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.ContainerImageBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A SIMULATOR of the container runtime behind each KWOK node (no containerd runs here): KWOK marks pods Running but
 * names no containers and pulls no images, so this gives each running container a containerd id (what the usage agent
 * finds the container's cgroup by) and its image an id, lists the images a node's pods ran in the node's
 * {@code status.images} (what the kubelet's image manager reports, 6 GiB each, a session image's size), and fails a
 * pod's containers when a test says so.
 */
public final class ContainerRuntimeStandIn implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ContainerRuntimeStandIn.class);
  /** What the stand-in reports as an image's size: real session images are 5 to 15 GiB. */
  public static final long IMAGE_SIZE_BYTES = 6_442_450_944L;

  private final KubernetesClient client;
  private final ScheduledExecutorService loop;
  /** Pods told to fail ({@code namespace/name}), with the reason; forgotten once failed. */
  private final Map<String, String> podsToFail = new ConcurrentHashMap<>();

  private ContainerRuntimeStandIn(KubernetesClient client, Duration tick) {
    this.client = client;
    this.loop = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "gshare-sim-container-runtime");
      t.setDaemon(true);
      return t;
    });
    loop.scheduleWithFixedDelay(this::passQuietly, 0, tick.toMillis(), TimeUnit.MILLISECONDS);
    log.info("container runtime stand-in (a simulator; no containerd runs here) names KWOK's containers and images");
  }

  public static ContainerRuntimeStandIn start(KubernetesClient client, Duration tick) {
    return new ContainerRuntimeStandIn(client, tick);
  }

  /** The pod's containers exit with {@code reason} (an error) on the next pass; it may not exist yet. */
  public void failPod(String namespace, String name, String reason) {
    podsToFail.put(namespace + "/" + name, reason == null ? "Error" : reason);
  }

  private void passQuietly() {
    try {
      pass();
    } catch (KubernetesClientException e) {
      log.warn("container runtime stand-in pass failed: {}", e.toString());
    } catch (RuntimeException e) {
      log.warn("container runtime stand-in pass failed", e);
    }
  }

  synchronized void pass() {
    Map<String, List<String>> imagesByNode = new LinkedHashMap<>();
    for (Pod pod : client.pods().inAnyNamespace().list().getItems()) {
      String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
      String node = pod.getSpec().getNodeName();
      if (node == null || pod.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      if ("Running".equals(phase) || "Succeeded".equals(phase)) {
        pod.getSpec().getContainers().forEach(c -> imagesByNode.computeIfAbsent(node, n -> new ArrayList<>())
            .add(c.getImage()));
      }
      if (!"Running".equals(phase)) {
        continue;
      }
      String key = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
      String failure = podsToFail.remove(key);
      if (failure != null) {
        fail(pod, failure);
      } else if (unnamed(pod)) {
        name(pod);
      }
    }
    imagesByNode.forEach(this::listImages);
  }

  private static boolean unnamed(Pod pod) {
    List<ContainerStatus> statuses = pod.getStatus().getContainerStatuses();
    return statuses != null && statuses.stream().anyMatch(s -> s.getContainerID() == null || s.getImageID() == null
        || s.getImageID().isEmpty());
  }

  /** containerd ids and image ids, as the kubelet reports them once the runtime started the containers. */
  private void name(Pod pod) {
    List<ContainerStatus> statuses = new ArrayList<>();
    for (ContainerStatus s : pod.getStatus().getContainerStatuses()) {
      s.setContainerID("containerd://" + sha256(pod.getMetadata().getUid() + "/" + s.getName()));
      s.setImageID(s.getImage() + "@sha256:" + sha256(s.getImage()));
      statuses.add(s);
    }
    patchStatus(pod, Map.of("containerStatuses", statuses));
  }

  private void fail(Pod pod, String reason) {
    String now = Instant.now().toString();
    List<Map<String, Object>> statuses = new ArrayList<>();
    for (ContainerStatus s : pod.getStatus().getContainerStatuses()) {
      statuses.add(Map.of("name", s.getName(), "image", s.getImage(), "imageID", s.getImageID() == null ? ""
          : s.getImageID(), "ready", false, "restartCount", 0, "state", Map.of("terminated", Map.of("exitCode", 1,
              "reason", reason, "startedAt", now, "finishedAt", now))));
    }
    patchStatus(pod, Map.of("phase", "Failed", "reason", reason, "containerStatuses", statuses,
        "conditions", List.of(Map.of("type", "Ready", "status", "False", "reason", "PodFailed",
            "lastTransitionTime", now))));
    log.info("pod {}/{} failed on simulated node {}: {}", pod.getMetadata().getNamespace(), pod.getMetadata().getName(),
        pod.getSpec().getNodeName(), reason);
  }

  /** Adds what ran on the node to its {@code status.images}, once each (a merge patch of that list alone). */
  private void listImages(String nodeName, List<String> images) {
    Node node = client.nodes().withName(nodeName).get();
    if (node == null || node.getStatus() == null) {
      return;
    }
    List<ContainerImage> listed = node.getStatus().getImages() == null ? new ArrayList<>()
        : new ArrayList<>(node.getStatus().getImages());
    boolean added = false;
    for (String image : images) {
      if (image != null && listed.stream().noneMatch(i -> i.getNames() != null && i.getNames().contains(image))) {
        listed.add(new ContainerImageBuilder().withNames(image).withSizeBytes(IMAGE_SIZE_BYTES).build());
        added = true;
      }
    }
    if (added) {
      client.nodes().withName(nodeName).subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE),
          client.getKubernetesSerialization().asJson(Map.of("status", Map.of("images", listed))));
      log.info("simulated node {} holds images {}", nodeName, images);
    }
  }

  private void patchStatus(Pod pod, Map<String, Object> status) {
    client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
        .subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE),
            client.getKubernetesSerialization().asJson(Map.of("status", status)));
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    loop.shutdownNow();
  }
}
