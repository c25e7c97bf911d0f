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
 * pod's containers or an image's pulls on a node when a test says so. A failed pull is what a kubelet reports: the
 * pod Pending, its container waiting in {@code ErrImagePull} with containerd's words, the image absent from the
 * node's {@code status.images}; KWOK's stage {@code gshare-pod-image-pull-failed} keeps it so.
 */
public final class ContainerRuntimeStandIn implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ContainerRuntimeStandIn.class);
  /** What the stand-in reports as an image's size: real session images are 5 to 15 GiB. */
  public static final long IMAGE_SIZE_BYTES = 6_442_450_944L;

  private final KubernetesClient client;
  private final ScheduledExecutorService loop;
  /** When to pass: the kinds it reads changed, or {@link ChangeTrigger#IDLE_PASS} went by. */
  private final ChangeTrigger changes;
  /** Pods told to fail ({@code namespace/name}), with the reason; forgotten once failed. */
  private final Map<String, String> podsToFail = new ConcurrentHashMap<>();
  /** Image pulls that fail: node, then the reference as pods name it, then the runtime's message. */
  private final Map<String, Map<String, String>> pullFailures = new ConcurrentHashMap<>();

  private ContainerRuntimeStandIn(KubernetesClient client, Duration tick) {
    this.client = client;
    this.loop = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "gshare-sim-container-runtime");
      t.setDaemon(true);
      return t;
    });
    this.changes = new ChangeTrigger()
        .watching(client.pods().inAnyNamespace());
    loop.scheduleWithFixedDelay(() -> {
      if (changes.due()) {
        passQuietly();
      }
    }, 0, tick.toMillis(), TimeUnit.MILLISECONDS);
    log.info("container runtime stand-in (a simulator; no containerd runs here) names KWOK's containers and images");
  }

  public static ContainerRuntimeStandIn start(KubernetesClient client, Duration tick) {
    return new ContainerRuntimeStandIn(client, tick);
  }

  /** The pod's containers exit with {@code reason} (an error) on the next pass; it may not exist yet. */
  public void failPod(String namespace, String name, String reason) {
    podsToFail.put(namespace + "/" + name, reason == null ? "Error" : reason);
    changes.poke(); // after the change: a pass between the two would clear the poke and miss it
  }

  /**
   * Pulls of {@code reference} (exactly as pods name it) on {@code node} fail with {@code message} from the next
   * pass on, e.g. "no space left on device"; a null message lifts it. A pod whose image the node already holds is
   * not pulled again unless its pull policy is Always. The pod may briefly show Running first (KWOK starts pods at
   * once); a run-once pod completes only after KWOK's 2 s, so the failure lands before. Lifting the failure does not
   * retry a pod it already failed (a kubelet would, after its back-off): make a new pod.
   */
  public void failImagePulls(String node, String reference, String message) {
    if (message == null) {
      pullFailures.computeIfPresent(node, (n, failing) -> {
        failing.remove(reference);
        return failing.isEmpty() ? null : failing;
      });
    } else {
      pullFailures.computeIfAbsent(node, n -> new ConcurrentHashMap<>()).put(reference, message);
    }
    changes.poke();
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
      PullFailure pullFailure = ("Pending".equals(phase) || "Running".equals(phase)) ? pullFailure(pod, node) : null;
      if (pullFailure != null) {
        if (!pullFailed(pod)) {
          failPull(pod, pullFailure.image(), pullFailure.message());
        }
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

  /** An image whose pull fails, and containerd's words for why. */
  private record PullFailure(String image, String message) {}

  /** The first of the pod's images whose pull fails on its node; null when none does. */
  private PullFailure pullFailure(Pod pod, String nodeName) {
    Map<String, String> failing = pullFailures.get(nodeName);
    if (failing == null || failing.isEmpty()) {
      return null;
    }
    Node node = null;
    for (var c : pod.getSpec().getContainers()) {
      String message = failing.get(c.getImage());
      if (message == null) {
        continue;
      }
      if (!"Always".equals(c.getImagePullPolicy())) {
        node = node == null ? client.nodes().withName(nodeName).get() : node;
        if (holds(node, c.getImage())) {
          continue;
        }
      }
      return new PullFailure(c.getImage(), message);
    }
    return null;
  }

  private static boolean holds(Node node, String image) {
    return node != null && node.getStatus() != null && node.getStatus().getImages() != null && node.getStatus()
        .getImages().stream().anyMatch(i -> i.getNames() != null && i.getNames().contains(image));
  }

  private static boolean pullFailed(Pod pod) {
    return "Pending".equals(pod.getStatus().getPhase()) && pod.getStatus().getContainerStatuses() != null
        && pod.getStatus().getContainerStatuses().stream().anyMatch(s -> s.getState() != null
            && s.getState().getWaiting() != null && "ErrImagePull".equals(s.getState().getWaiting().getReason()));
  }

  /** Pending, the container waiting in ErrImagePull with containerd's words, as {@code kubectl describe} shows. */
  private void failPull(Pod pod, String image, String message) {
    List<Map<String, Object>> statuses = new ArrayList<>();
    for (var c : pod.getSpec().getContainers()) {
      Map<String, Object> waiting = image.equals(c.getImage())
          ? Map.of("reason", "ErrImagePull", "message", "failed to pull and unpack image \"" + image + "\": " + message)
          : Map.of("reason", "PodInitializing");
      statuses.add(Map.of("name", c.getName(), "image", c.getImage(), "imageID", "", "ready", false, "started", false,
          "restartCount", 0, "state", Map.of("waiting", waiting)));
    }
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("phase", "Pending");
    status.put("containerStatuses", statuses);
    status.put("conditions", List.of(Map.of("type", "Ready", "status", "False", "reason", "ContainersNotReady",
        "message", "containers with unready status: [" + String.join(" ", pod.getSpec().getContainers().stream()
            .map(c -> c.getName()).toList()) + "]", "lastTransitionTime", Instant.now().toString())));
    patchStatus(pod, status);
    log.info("image {} failed to pull on simulated node {} for pod {}/{}: {}", image, pod.getSpec().getNodeName(),
        pod.getMetadata().getNamespace(), pod.getMetadata().getName(), message);
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
    changes.close();
  }
}
