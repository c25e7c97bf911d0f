package io.gshare.sim;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.gshare.workflows.kube.LabelKeys;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plays the kubelets (and the scheduler's binding step) of every simulated node. Each tick it: binds
 * pending pods that name their node through {@code nodeName} or a {@code kubernetes.io/hostname}
 * selector (a selector binds only to a node that is not cordoned); moves bound pods to Running with a
 * pod IP and containerd container ids once {@code startDelay} has passed (batch pods — restartPolicy Never with a command — to
 * Succeeded; any pod to Failed when told to); marks pods on a dropped node not ready; and deletes pods
 * whose node is gone, as the pod garbage collector does. Pods on a cordoned node are left running:
 * cordon is about scheduling only. Starting a pod "pulls" its images: they are added to its node's
 * {@code status.images}, as a real kubelet's image manager reports them; a pull told to fail on a node
 * keeps the pod Pending with its container waiting in {@code ErrImagePull} and the runtime's message.
 */
final class KubeletSimulator {

  private static final Logger log = LoggerFactory.getLogger(KubeletSimulator.class);
  private static final String UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable";
  /** The scheduler's words for a pod whose only candidate node is cordoned. */
  static final String CORDONED = "0/1 nodes are available: 1 node(s) were unschedulable.";

  private final ObjectStore store;
  private final Clock clock;
  private final Duration startDelay;
  /** Nodes whose kubelet stopped posting status (simulated network or host loss). */
  private final Set<String> droppedNodes = ConcurrentHashMap.newKeySet();
  /** Pods told to fail (perhaps before they exist), with the reason; forgotten once failed. */
  private final Map<String, String> podsToFail = new ConcurrentHashMap<>();
  /** When each pod was first seen bound, to hold it in Pending for {@code startDelay}. */
  private final Map<String, Instant> boundAt = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> nextIpByNode = new ConcurrentHashMap<>();
  /** Image pulls told to fail, by node and then image reference, with the runtime's message. */
  private final Map<String, Map<String, String>> pullFailures = new ConcurrentHashMap<>();
  /** What the simulator reports as an image's size: real session images are 5 to 15 GiB. */
  static final long IMAGE_SIZE_BYTES = 6_442_450_944L;

  KubeletSimulator(ObjectStore store, Clock clock, Duration startDelay) {
    this.store = store;
    this.clock = clock;
    this.startDelay = startDelay;
  }

  void dropNode(String name) {
    droppedNodes.add(name);
  }

  void restoreNode(String name) {
    droppedNodes.remove(name);
  }

  boolean isDropped(String name) {
    return droppedNodes.contains(name);
  }

  void failPod(String namespace, String name, String reason) {
    podsToFail.put(namespace + "/" + name, reason == null ? "Error" : reason);
  }

  /** Pulls of {@code image} on {@code node} fail with {@code reason} from now on; a null reason makes them work again. */
  void failImagePulls(String node, String image, String reason) {
    if (reason == null) {
      pullFailures.getOrDefault(node, new ConcurrentHashMap<>()).remove(image);
    } else {
      pullFailures.computeIfAbsent(node, n -> new ConcurrentHashMap<>()).put(image, reason);
    }
  }

  /** One pass over every node and pod; called on a fixed delay. */
  void tick() {
    Instant now = clock.instant();
    Map<String, Node> nodes =
        store.list("/api/v1/nodes", NodeList.class).getItems().stream()
            .collect(Collectors.toMap(n -> n.getMetadata().getName(), n -> n));
    syncNodeReadiness(nodes.values(), now);
    List<Pod> pods = store.list("/api/v1/pods", PodList.class).getItems();
    Set<String> live = ConcurrentHashMap.newKeySet();
    for (Pod pod : pods) {
      String key = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
      live.add(key);
      try {
        step(pod, key, nodes, now);
      } catch (RuntimeException e) {
        log.warn("kubelet simulator could not advance pod {}: {}", key, e.toString());
      }
    }
    boundAt.keySet().retainAll(live);
  }

  private void syncNodeReadiness(Iterable<Node> nodes, Instant now) {
    for (Node node : nodes) {
      String name = node.getMetadata().getName();
      String want = droppedNodes.contains(name) ? "Unknown" : "True";
      String have =
          node.getStatus() == null || node.getStatus().getConditions() == null
              ? null
              : node.getStatus().getConditions().stream()
                  .filter(c -> "Ready".equals(c.getType()))
                  .map(c -> c.getStatus())
                  .findFirst()
                  .orElse(null);
      if (!want.equals(have)) {
        var condition =
            "True".equals(want)
                ? SimObjects.readyCondition("True", "KubeletReady", "kubelet is posting ready status (simulated)", now)
                : SimObjects.readyCondition("Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.", now);
        node.getStatus().setConditions(List.of(condition));
        store.replace("/api/v1/nodes/" + name + "/status", node);
        log.info("simulated node {} is now Ready={}", name, want);
      }
    }
  }

  private void step(Pod pod, String key, Map<String, Node> nodes, Instant now) {
    String namespace = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    String podPath = "/api/v1/namespaces/" + namespace + "/pods/" + name;
    String nodeName = pod.getSpec().getNodeName();
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();

    if (pod.getMetadata().getDeletionTimestamp() != null) {
      store.delete(podPath); // no graceful shutdown to wait for in a simulator
      return;
    }
    if (nodeName == null || nodeName.isEmpty()) {
      String wanted = pod.getSpec().getNodeSelector() == null ? null : pod.getSpec().getNodeSelector().get(LabelKeys.HOSTNAME);
      boolean cordoned = wanted != null && nodes.containsKey(wanted) && !schedulable(nodes.get(wanted), pod);
      if (wanted != null && nodes.containsKey(wanted) && !droppedNodes.contains(wanted) && !cordoned) {
        store.mergePatch(podPath, "{\"spec\":{\"nodeName\":\"" + wanted + "\"}}");
        boundAt.put(key, now);
      } else if (phase == null || cordoned && !unschedulableBecauseCordoned(pod)) {
        writeStatus(podPath, pod, new PodStatusBuilder().withPhase("Pending")
            .withConditions(condition("PodScheduled", "False", "Unschedulable", cordoned ? CORDONED
                : "the simulator binds only pods that name their node (nodeName or kubernetes.io/hostname)", now))
            .build());
      }
      return;
    }
    if (!nodes.containsKey(nodeName)) {
      store.delete(podPath); // the pod garbage collector removes pods bound to deleted nodes
      log.info("deleted pod {} whose node {} is gone", key, nodeName);
      return;
    }
    boundAt.putIfAbsent(key, now);
    boolean nodeDropped = droppedNodes.contains(nodeName);
    if (("Pending".equals(phase) || phase == null) && !nodeDropped) {
      if (podsToFail.containsKey(key) || pod.getMetadata().getAnnotations() != null
          && pod.getMetadata().getAnnotations().containsKey(SimLabels.FAIL_POD)) {
        String reason = podsToFail.getOrDefault(key, pod.getMetadata().getAnnotations() == null ? "Error"
            : pod.getMetadata().getAnnotations().getOrDefault(SimLabels.FAIL_POD, "Error"));
        writeStatus(podPath, pod, failed(pod, reason, now));
        podsToFail.remove(key);
      } else if (pullFailure(pod, nodes.get(nodeName)) != null) {
        String[] failure = pullFailure(pod, nodes.get(nodeName));
        if (!pullFailing(pod)) {
          writeStatus(podPath, pod, pullFailed(pod, failure[0], failure[1], now));
          log.info("pod {}: pulling {} fails on simulated node {}: {}", key, failure[0], nodeName, failure[1]);
        }
      } else if (!now.isBefore(boundAt.get(key).plus(startDelay))) {
        pulled(nodes.get(nodeName), pod);
        if (runsToCompletion(pod)) {
          writeStatus(podPath, pod, succeeded(pod, now));
          log.info("pod {} ran to completion on simulated node {}", key, nodeName);
        } else {
          writeStatus(podPath, pod, running(pod, nodes.get(nodeName), now));
          log.info("pod {} is Running on simulated node {}", key, nodeName);
        }
      }
      return;
    }
    if ("Running".equals(phase)) {
      if (podsToFail.containsKey(key)) {
        writeStatus(podPath, pod, failed(pod, podsToFail.remove(key), now));
      } else if (nodeDropped == isReady(pod)) {
        PodStatus status = pod.getStatus();
        status.setConditions(readyConditions(!nodeDropped, now));
        writeStatus(podPath, pod, status);
      }
    }
  }

  /**
   * Cordon ({@code spec.unschedulable}) keeps the scheduler's binding step off the node, unless the pod
   * tolerates {@code node.kubernetes.io/unschedulable:NoSchedule}. Pods already bound, and pods that name
   * their node in {@code nodeName} (they bypass the scheduler), run on a cordoned node as before.
   */
  private static boolean schedulable(Node node, Pod pod) {
    if (node.getSpec() == null || !Boolean.TRUE.equals(node.getSpec().getUnschedulable())) {
      return true;
    }
    return pod.getSpec().getTolerations() != null && pod.getSpec().getTolerations().stream().anyMatch(t ->
        (t.getEffect() == null || t.getEffect().isEmpty() || "NoSchedule".equals(t.getEffect()))
            && ("Exists".equals(t.getOperator()) && (t.getKey() == null || t.getKey().isEmpty())
                || UNSCHEDULABLE_TAINT.equals(t.getKey())));
  }

  private static boolean unschedulableBecauseCordoned(Pod pod) {
    return pod.getStatus() != null && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream().anyMatch(c -> CORDONED.equals(c.getMessage()));
  }

  /**
   * The first of the pod's images whose pull fails on the node, with the message; null when none does. An
   * image the node already holds is not pulled again unless the container's policy is Always.
   */
  private String[] pullFailure(Pod pod, Node node) {
    Map<String, String> failing = pullFailures.get(node.getMetadata().getName());
    if (failing == null || failing.isEmpty()) {
      return null;
    }
    return pod.getSpec().getContainers().stream().filter(c -> failing.containsKey(c.getImage()))
        .filter(c -> "Always".equals(c.getImagePullPolicy()) || !holds(node, c.getImage()))
        .map(c -> new String[] {c.getImage(), failing.get(c.getImage())}).findFirst().orElse(null);
  }

  private static boolean holds(Node node, String image) {
    return node.getStatus().getImages() != null && node.getStatus().getImages().stream()
        .anyMatch(i -> i.getNames() != null && i.getNames().contains(image));
  }

  private static boolean pullFailing(Pod pod) {
    return pod.getStatus() != null && pod.getStatus().getContainerStatuses() != null
        && pod.getStatus().getContainerStatuses().stream().anyMatch(c -> c.getState() != null
            && c.getState().getWaiting() != null && "ErrImagePull".equals(c.getState().getWaiting().getReason()));
  }

  /** Pending, the container waiting in ErrImagePull with containerd's words, as {@code kubectl describe} shows. */
  private static PodStatus pullFailed(Pod pod, String image, String reason, Instant now) {
    List<ContainerStatus> containers = new ArrayList<>();
    pod.getSpec().getContainers().forEach(c -> containers.add(new ContainerStatusBuilder()
        .withName(c.getName())
        .withImage(c.getImage())
        .withImageID("")
        .withReady(false)
        .withStarted(false)
        .withRestartCount(0)
        .withNewState().withNewWaiting().withReason(image.equals(c.getImage()) ? "ErrImagePull" : "PodInitializing")
        .withMessage(image.equals(c.getImage()) ? "failed to pull and unpack image \"" + image + "\": " + reason : null)
        .endWaiting().endState()
        .build()));
    return new PodStatusBuilder()
        .withPhase("Pending")
        .withConditions(condition("PodScheduled", "True", null, null, now),
            condition("Ready", "False", "ContainersNotReady", "containers with unready status: ["
                + containers.stream().map(ContainerStatus::getName).collect(Collectors.joining(" ")) + "]", now))
        .withContainerStatuses(containers)
        .build();
  }

  /** Adds the pod's images to its node's {@code status.images}, as the kubelet lists what the runtime holds. */
  private void pulled(Node node, Pod pod) {
    List<io.fabric8.kubernetes.api.model.ContainerImage> images = node.getStatus().getImages() == null
        ? new ArrayList<>() : new ArrayList<>(node.getStatus().getImages());
    boolean added = false;
    for (var container : pod.getSpec().getContainers()) {
      String image = container.getImage();
      if (image != null && !holds(node, image) && images.stream().noneMatch(i -> i.getNames().contains(image))) {
        images.add(new io.fabric8.kubernetes.api.model.ContainerImageBuilder().withNames(image)
            .withSizeBytes(IMAGE_SIZE_BYTES).build());
        added = true;
      }
    }
    if (added) {
      node.getStatus().setImages(images);
      // A merge patch of status.images alone, so a cordon patched in since this tick's list is kept.
      store.mergePatch("/api/v1/nodes/" + node.getMetadata().getName() + "/status",
          "{\"status\":{\"images\":" + store.serialization().asJson(images) + "}}");
      log.info("simulated node {} pulled {}", node.getMetadata().getName(),
          pod.getSpec().getContainers().stream().map(c -> c.getImage()).toList());
    }
  }

  private void writeStatus(String podPath, Pod pod, PodStatus status) {
    pod.setStatus(status);
    store.replace(podPath + "/status", pod);
  }

  private PodStatus running(Pod pod, Node node, Instant now) {
    List<ContainerStatus> containers = new ArrayList<>();
    pod.getSpec().getContainers().forEach(c -> containers.add(new ContainerStatusBuilder()
        .withName(c.getName())
        .withImage(c.getImage())
        .withImageID("sim://" + c.getImage())
        .withContainerID(containerId(pod, c.getName()))
        .withReady(true)
        .withStarted(true)
        .withRestartCount(0)
        .withNewState().withNewRunning().withStartedAt(now.toString()).endRunning().endState()
        .build()));
    return new PodStatusBuilder()
        .withPhase("Running")
        .withHostIP(node.getStatus().getAddresses().get(0).getAddress())
        .withPodIP(nextPodIp(node))
        .withStartTime(now.toString())
        .withConditions(readyConditions(true, now))
        .withContainerStatuses(containers)
        .build();
  }

  /**
   * {@code containerd://} and 64 hex digits, as containerd names a container: here the SHA-256 of the pod's uid and
   * the container's name, so the same container keeps its id and a node agent can find its cgroup scope.
   */
  static String containerId(Pod pod, String container) {
    String owner = pod.getMetadata().getUid() != null ? pod.getMetadata().getUid()
        : pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    try {
      byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
          .digest((owner + "/" + container).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return "containerd://" + java.util.HexFormat.of().formatHex(digest);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** A batch pod (never restarted, its container told what to run) completes instead of serving. */
  private static boolean runsToCompletion(Pod pod) {
    return "Never".equals(pod.getSpec().getRestartPolicy()) && pod.getSpec().getContainers().stream()
        .anyMatch(c -> c.getCommand() != null && !c.getCommand().isEmpty());
  }

  private PodStatus succeeded(Pod pod, Instant now) {
    List<ContainerStatus> containers = new ArrayList<>();
    pod.getSpec().getContainers().forEach(c -> containers.add(new ContainerStatusBuilder()
        .withName(c.getName())
        .withImage(c.getImage())
        .withImageID("sim://" + c.getImage())
        .withReady(false)
        .withStarted(false)
        .withRestartCount(0)
        .withNewState().withNewTerminated().withExitCode(0).withReason("Completed").withFinishedAt(now.toString())
        .endTerminated().endState()
        .build()));
    return new PodStatusBuilder()
        .withPhase("Succeeded")
        .withStartTime(now.toString())
        .withContainerStatuses(containers)
        .build();
  }

  private PodStatus failed(Pod pod, String reason, Instant now) {
    List<ContainerStatus> containers = new ArrayList<>();
    pod.getSpec().getContainers().forEach(c -> containers.add(new ContainerStatusBuilder()
        .withName(c.getName())
        .withImage(c.getImage())
        .withReady(false)
        .withRestartCount(0)
        .withNewState().withNewTerminated().withExitCode(1).withReason(reason).withFinishedAt(now.toString())
        .endTerminated().endState()
        .build()));
    return new PodStatusBuilder()
        .withPhase("Failed")
        .withReason(reason)
        .withMessage("failed by the gShare kubelet simulator")
        .withConditions(readyConditions(false, now))
        .withContainerStatuses(containers)
        .build();
  }

  private String nextPodIp(Node node) {
    String cidr = node.getSpec().getPodCIDR(); // 10.244.N.0/24
    String prefix = cidr.substring(0, cidr.lastIndexOf('.') + 1);
    int host = nextIpByNode.computeIfAbsent(node.getMetadata().getName(), n -> new AtomicInteger(2)).getAndIncrement();
    return prefix + (2 + (host - 2) % 250);
  }

  private static boolean isReady(Pod pod) {
    return pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static List<PodCondition> readyConditions(boolean ready, Instant now) {
    String status = ready ? "True" : "False";
    Map<String, String> byType = new HashMap<>();
    byType.put("PodScheduled", "True");
    byType.put("Initialized", "True");
    byType.put("ContainersReady", status);
    byType.put("Ready", status);
    List<PodCondition> conditions = new ArrayList<>();
    for (String type : List.of("PodScheduled", "Initialized", "ContainersReady", "Ready")) {
      conditions.add(condition(type, byType.get(type), null, null, now));
    }
    return conditions;
  }

  private static PodCondition condition(String type, String status, String reason, String message, Instant now) {
    return new PodConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .withLastTransitionTime(now.toString())
        .build();
  }
}
