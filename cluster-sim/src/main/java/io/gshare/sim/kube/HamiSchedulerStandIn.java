package io.gshare.sim.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gshare.workflows.kube.Annotations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A SIMULATOR of HAMi's scheduler (v2.10) and of the Allocate step of its device plugin, over a real apiserver:
 * HAMi is not served by the Go module proxy, so it cannot run here. It answers the pods whose
 * {@code schedulerName} is {@value #SCHEDULER_NAME} as HAMi does (the protocol in FACTS.md, "HAMi's scheduler
 * protocol"): it filters nodes by the pod's node selector, cordon and taints as kube-scheduler would, then by
 * HAMi's devices (registered nodes only; {@code nvidia.com/use-gpuuuid}, {@code nvidia.com/nouse-gpuuuid},
 * {@code hami.io/device-cordon}, slices, memory, cores), writes the annotations HAMi writes, takes HAMi's node
 * lock, creates the Binding, and then, as the device plugin's Allocate, marks the bind a success and frees the
 * lock. A pod it cannot place keeps {@code PodScheduled=False} with HAMi's reasons, as kube-scheduler writes them.
 *
 * <p>Like HAMi it reads a node's {@code hami.io/device-cordon} only when it registers the node: at first sight,
 * and again only when the register annotation or the {@code nvidia.com/gpu} allocatable changes. A cordon or an
 * uncordon written later is not seen until {@link #restart()}, which plays a restart of HAMi's scheduler.
 */
public final class HamiSchedulerStandIn implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(HamiSchedulerStandIn.class);

  public static final String SCHEDULER_NAME = "hami-scheduler";
  // HAMi's annotations on a pod and a node (pkg/util/types.go, pkg/device/nvidia/device.go at v2.10.0).
  public static final String VGPU_NODE = "hami.io/vgpu-node";
  public static final String VGPU_TIME = "hami.io/vgpu-time";
  public static final String DEVICES_TO_ALLOCATE = "hami.io/vgpu-devices-to-allocate";
  public static final String DEVICES_ALLOCATED = "hami.io/vgpu-devices-allocated";
  public static final String BIND_PHASE = "hami.io/bind-phase";
  public static final String BIND_TIME = "hami.io/bind-time";
  public static final String NODE_LOCK = "hami.io/mutex.lock";
  public static final String NO_USE_GPU_UUID = "nvidia.com/nouse-gpuuuid";
  // The reasons HAMi's filter gives, as kube-scheduler counts them in its "0/N nodes are available" message.
  public static final String CARD_CORDONED = "CardCordoned";
  public static final String CARD_UUID_MISMATCH = "CardUuidMismatch";
  public static final String CARD_INSUFFICIENT_MEMORY = "CardInsufficientMemory";
  public static final String CARD_INSUFFICIENT_CORE = "CardInsufficientCore";
  public static final String CARD_TIME_SLICING_EXHAUSTED = "CardTimeSlicingExhausted";
  public static final String CARD_UNHEALTHY = "CardUnhealthy";
  public static final String NODE_INSUFFICIENT_DEVICE = "NodeInsufficientDevice";
  static final String NODE_UNREGISTERED = "node unregistered";
  static final String NODE_SELECTOR_MISMATCH = "node(s) didn't match Pod's node affinity/selector";
  static final String NODE_UNSCHEDULABLE = "node(s) were unschedulable";
  private static final String UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable";
  private static final Duration NODE_LOCK_TIMEOUT = Duration.ofMinutes(5);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A GPU as HAMi's device plugin registers it. */
  record Card(String uuid, String type, int splitCount, long memoryMib, int cores, boolean healthy) {}

  /** What HAMi holds about a node since it last registered it. */
  record Registration(String register, String gpuAllocatable, List<Card> cards, Set<String> cordoned) {}

  /** What the pods already bound use of one card. */
  private static final class Usage {
    int pods;
    long memoryMib;
    int cores;
  }

  /** One container's request: how many cards, and per card the memory (MiB; 0 = all of it) and the cores. */
  record Request(int cards, long memoryMib, int cores) {}

  private final KubernetesClient client;
  private final Clock clock;
  private final Map<String, Registration> registered = new ConcurrentHashMap<>();
  private final AtomicBoolean bindingHeld = new AtomicBoolean();
  private final ScheduledExecutorService loop;
  /** When to pass: the kinds it reads changed, or {@link ChangeTrigger#IDLE_PASS} went by. */
  private final ChangeTrigger changes;

  private HamiSchedulerStandIn(KubernetesClient client, Duration tick, Clock clock) {
    this.client = client;
    this.clock = clock;
    this.loop = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "gshare-sim-hami-scheduler");
      t.setDaemon(true);
      return t;
    });
    this.changes = new ChangeTrigger()
        .watching(client.nodes())
        .watching(client.pods().inAnyNamespace());
    loop.scheduleWithFixedDelay(() -> {
      if (changes.due()) {
        passQuietly();
      }
    }, 0, tick.toMillis(), TimeUnit.MILLISECONDS);
    log.info("HAMi scheduler stand-in (a simulator; HAMi itself cannot run here) answers pods of schedulerName {}",
        SCHEDULER_NAME);
  }

  /** Starts the stand-in; it looks at nodes and pods every {@code tick}. */
  public static HamiSchedulerStandIn start(KubernetesClient client, Duration tick) {
    return new HamiSchedulerStandIn(client, tick, Clock.systemUTC());
  }

  /**
   * Forgets every node's registration, as a restart of HAMi's scheduler does: cordons are read afresh. After any pass
   * in flight (both hold this monitor): such a pass read the nodes before the restart, and would register them again
   * as they were (a cordon written just before the restart went unseen, and a test waited for it in vain).
   */
  public synchronized void restart() {
    registered.clear();
    changes.poke();
    log.info("HAMi scheduler stand-in restarted: nodes are registered again");
  }

  /**
   * Binds nothing until {@link #resumeBinding()}, as while HAMi's scheduler is down or slow: pods of its scheduler
   * wait unbound (nodes are still registered). The fault suite holds a session's pod this way, where waiting for a
   * silent node's kubelet would race KWOK noticing the silence.
   */
  public void holdBinding() {
    bindingHeld.set(true);
    log.info("HAMi scheduler stand-in holds its binds");
  }

  /** Binds again what waited while {@link #holdBinding() held}. */
  public void resumeBinding() {
    if (bindingHeld.getAndSet(false)) {
      changes.poke();
      log.info("HAMi scheduler stand-in binds again");
    }
  }

  /** The cards of {@code node} this HAMi holds cordoned: what the node said when it was last registered. */
  public Set<String> cordonsHeld(String node) {
    Registration registration = registered.get(node);
    return registration == null ? Set.of() : Set.copyOf(registration.cordoned());
  }

  private void passQuietly() {
    try {
      pass();
    } catch (KubernetesClientException | IllegalStateException e) {
      log.warn("HAMi scheduler stand-in pass failed: {}", e.toString());
    } catch (RuntimeException e) {
      log.warn("HAMi scheduler stand-in pass failed", e);
    }
  }

  /** One pass: register nodes, complete binds (the device plugin's Allocate), then place pending pods. */
  synchronized void pass() {
    Map<String, Node> nodes = new TreeMap<>();
    client.nodes().list().getItems().forEach(n -> nodes.put(n.getMetadata().getName(), n));
    nodes.values().forEach(this::register);
    registered.keySet().retainAll(nodes.keySet());
    List<Pod> pods = client.pods().inAnyNamespace().list().getItems();
    releaseLocks(nodes, pods);
    if (bindingHeld.get()) {
      return;
    }
    Map<String, Usage> usage = usage(pods);
    for (Pod pod : pods) {
      if (SCHEDULER_NAME.equals(pod.getSpec().getSchedulerName()) && unbound(pod)) {
        schedule(pod, nodes, usage);
      }
    }
  }

  private void register(Node node) {
    Map<String, String> annotations = annotations(node.getMetadata().getAnnotations());
    String register = annotations.get(Annotations.HAMI_NODE_REGISTER);
    String gpus = allocatable(node, "nvidia.com/gpu");
    Registration known = registered.get(node.getMetadata().getName());
    if (register == null) {
      registered.remove(node.getMetadata().getName());
      return;
    }
    if (known != null && known.register().equals(register) && known.gpuAllocatable().equals(gpus)) {
      return; // HAMi keeps its cached node, cordons included, until the devices change
    }
    Set<String> cordoned = Arrays.stream(annotations.getOrDefault(Annotations.HAMI_DEVICE_CORDON, "").split(","))
        .map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toSet());
    registered.put(node.getMetadata().getName(), new Registration(register, gpus, cards(register), cordoned));
  }

  /** The v2.8+ JSON encoding the v2.10 device plugin writes; every field is omitempty. */
  static List<Card> cards(String register) {
    try {
      List<Card> cards = new ArrayList<>();
      for (JsonNode d : JSON.readTree(register)) {
        cards.add(new Card(d.path("id").asText(), d.path("type").asText("NVIDIA"), d.path("count").asInt(0),
            d.path("devmem").asLong(0), d.path("devcore").asInt(0), d.path("health").asBoolean(false)));
      }
      return cards;
    } catch (Exception e) {
      throw new IllegalStateException("unreadable " + Annotations.HAMI_NODE_REGISTER + ": " + e.getMessage(), e);
    }
  }

  /** Per card uuid, what live pods hold, from their {@code hami.io/vgpu-devices-allocated}. */
  private static Map<String, Usage> usage(List<Pod> pods) {
    Map<String, Usage> usage = new HashMap<>();
    for (Pod pod : pods) {
      String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
      if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
        continue;
      }
      String allocated = annotations(pod.getMetadata().getAnnotations()).get(DEVICES_ALLOCATED);
      if (allocated == null) {
        continue;
      }
      for (String container : allocated.split(";")) {
        for (String device : container.split(":")) {
          String[] fields = device.split(",");
          if (fields.length >= 4) {
            Usage u = usage.computeIfAbsent(fields[0], k -> new Usage());
            u.pods++;
            u.memoryMib += Long.parseLong(fields[2]);
            u.cores += Integer.parseInt(fields[3]);
          }
        }
      }
    }
    return usage;
  }

  private void schedule(Pod pod, Map<String, Node> nodes, Map<String, Usage> usage) {
    List<Request> requests = requests(pod);
    Map<String, Integer> refusals = new LinkedHashMap<>();
    for (Node node : nodes.values()) {
      String why = kubeSchedulerFilter(pod, node);
      if (why != null) {
        refusals.merge(why, 1, Integer::sum);
        continue;
      }
      Registration registration = registered.get(node.getMetadata().getName());
      if (requests.isEmpty()) {
        bind(pod, node, null);
        return;
      }
      if (registration == null) {
        refusals.merge(NODE_UNREGISTERED, 1, Integer::sum);
        continue;
      }
      Map<String, String> podAnnotations = annotations(pod.getMetadata().getAnnotations());
      List<List<String>> chosen = new ArrayList<>();
      Map<String, Usage> planned = copy(usage);
      String cardRefusal = null;
      for (Request request : requests) {
        List<String> fit = new ArrayList<>();
        for (Card card : registration.cards()) {
          String refusal = refusal(card, request, podAnnotations, registration.cordoned(), planned.get(card.uuid()));
          if (refusal == null && fit.size() < request.cards()) {
            fit.add(card.uuid());
            Usage u = planned.computeIfAbsent(card.uuid(), k -> new Usage());
            u.pods++;
            u.memoryMib += memoryOf(card, request);
            u.cores += request.cores();
          } else if (refusal != null && (!CARD_UUID_MISMATCH.equals(refusal) || cardRefusal == null)) {
            cardRefusal = refusal; // a reason about a card the pod may use says more than a mismatch
          }
        }
        if (fit.size() < request.cards()) {
          chosen = null;
          break;
        }
        chosen.add(fit);
      }
      if (chosen == null) {
        refusals.merge(cardRefusal == null ? NODE_INSUFFICIENT_DEVICE : cardRefusal, 1, Integer::sum);
        continue;
      }
      if (locked(node, pod)) {
        return; // "node lock contention": tried again on a later pass
      }
      bind(pod, node, allocation(chosen, requests, registration));
      return;
    }
    refuse(pod, nodes.size(), refusals);
  }

  /** Why kube-scheduler's own filters (node selector, cordon, NoSchedule taints) leave the node out; null if not. */
  private static String kubeSchedulerFilter(Pod pod, Node node) {
    Map<String, String> labels = annotations(node.getMetadata().getLabels());
    Map<String, String> selector = pod.getSpec().getNodeSelector() == null ? Map.of() : pod.getSpec().getNodeSelector();
    if (!selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
      return NODE_SELECTOR_MISMATCH;
    }
    if (Boolean.TRUE.equals(node.getSpec().getUnschedulable()) && !tolerates(pod, UNSCHEDULABLE_TAINT)) {
      return NODE_UNSCHEDULABLE;
    }
    if (node.getSpec().getTaints() != null) {
      for (var taint : node.getSpec().getTaints()) {
        if ("NoSchedule".equals(taint.getEffect()) && !UNSCHEDULABLE_TAINT.equals(taint.getKey())
            && !tolerates(pod, taint.getKey())) {
          return "node(s) had untolerated taint {" + taint.getKey() + ": " + (taint.getValue() == null ? ""
              : taint.getValue()) + "}";
        }
      }
    }
    return null;
  }

  private static boolean tolerates(Pod pod, String key) {
    return pod.getSpec().getTolerations() != null && pod.getSpec().getTolerations().stream().anyMatch(t ->
        "Exists".equals(t.getOperator()) && (t.getKey() == null || t.getKey().isEmpty()) || key.equals(t.getKey()));
  }

  /** Why HAMi will not give {@code card} to the request; null when it fits. */
  private static String refusal(Card card, Request request, Map<String, String> podAnnotations, Set<String> cordoned,
      Usage used) {
    String only = podAnnotations.get(Annotations.HAMI_USE_GPU_UUID);
    if (only != null && !only.isBlank() && !List.of(only.split(",")).contains(card.uuid())) {
      return CARD_UUID_MISMATCH;
    }
    String never = podAnnotations.get(NO_USE_GPU_UUID);
    if (never != null && List.of(never.split(",")).contains(card.uuid())) {
      return CARD_UUID_MISMATCH;
    }
    if (cordoned.contains(card.uuid())) {
      return CARD_CORDONED;
    }
    if (!card.healthy()) {
      return CARD_UNHEALTHY;
    }
    int pods = used == null ? 0 : used.pods;
    long memory = used == null ? 0 : used.memoryMib;
    int cores = used == null ? 0 : used.cores;
    if (pods >= card.splitCount()) {
      return CARD_TIME_SLICING_EXHAUSTED;
    }
    if (memory + memoryOf(card, request) > card.memoryMib()) {
      return CARD_INSUFFICIENT_MEMORY;
    }
    // 100% of the cores asks for the card alone; a card someone holds whole takes no one else.
    if (cores + request.cores() > card.cores() || request.cores() == card.cores() && pods > 0
        || cores == card.cores() && card.cores() > 0) {
      return CARD_INSUFFICIENT_CORE;
    }
    return null;
  }

  private static long memoryOf(Card card, Request request) {
    return request.memoryMib() == 0 ? card.memoryMib() : request.memoryMib();
  }

  /** Each container's GPU request, from its limits; containers without {@code nvidia.com/gpu} ask for none. */
  static List<Request> requests(Pod pod) {
    List<Request> requests = new ArrayList<>();
    for (Container c : pod.getSpec().getContainers()) {
      Map<String, Quantity> limits = c.getResources() == null || c.getResources().getLimits() == null ? Map.of()
          : c.getResources().getLimits();
      if (limits.containsKey("nvidia.com/gpu")) {
        requests.add(new Request(amount(limits.get("nvidia.com/gpu")), amount(limits.get("nvidia.com/gpumem")),
            amount(limits.get("nvidia.com/gpucores"))));
      }
    }
    return requests;
  }

  private static int amount(Quantity quantity) {
    return quantity == null ? 0 : Quantity.getAmountInBytes(quantity).intValue();
  }

  /** {@code <uuid>,<type>,<mem MiB>,<cores>:} per card, {@code ;} per container, as HAMi encodes it. */
  private static String allocation(List<List<String>> chosen, List<Request> requests, Registration registration) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < chosen.size(); i++) {
      for (String uuid : chosen.get(i)) {
        Card card = registration.cards().stream().filter(c -> c.uuid().equals(uuid)).findFirst().orElseThrow();
        out.append(uuid).append(',').append("NVIDIA").append(',').append(memoryOf(card, requests.get(i)))
            .append(',').append(requests.get(i).cores()).append(':');
      }
      out.append(';');
    }
    return out.toString();
  }

  /** HAMi's node lock: while another pod holds it (for under the lock timeout), this pod waits. */
  private boolean locked(Node node, Pod pod) {
    String lock = annotations(node.getMetadata().getAnnotations()).get(NODE_LOCK);
    if (lock == null) {
      return false;
    }
    String[] parts = lock.split(",");
    boolean mine = parts.length == 3 && parts[1].equals(pod.getMetadata().getNamespace())
        && parts[2].equals(pod.getMetadata().getName());
    boolean fresh = Instant.parse(parts[0]).plus(NODE_LOCK_TIMEOUT).isAfter(clock.instant());
    return !mine && fresh;
  }

  private void bind(Pod pod, Node node, String allocation) {
    String nodeName = node.getMetadata().getName();
    String namespace = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    Instant now = clock.instant();
    if (allocation != null) {
      patchAnnotations(client.nodes().withName(nodeName), Map.of(NODE_LOCK, now + "," + namespace + "," + name));
      Map<String, String> written = new LinkedHashMap<>();
      written.put(VGPU_NODE, nodeName);
      written.put(VGPU_TIME, String.valueOf(now.getEpochSecond()));
      written.put(DEVICES_TO_ALLOCATE, allocation);
      written.put(DEVICES_ALLOCATED, allocation);
      written.put(BIND_PHASE, "allocating");
      written.put(BIND_TIME, String.valueOf(now.getEpochSecond()));
      patchAnnotations(client.pods().inNamespace(namespace).withName(name), written);
    }
    client.bindings().inNamespace(namespace).resource(new BindingBuilder()
        .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
        .withNewTarget().withKind("Node").withApiVersion("v1").withName(nodeName).endTarget()
        .build()).create();
    log.info("HAMi stand-in bound pod {}/{} to {} ({})", namespace, name, nodeName,
        allocation == null ? "no GPU" : allocation);
    if (allocation != null) {
      // The kubelet admits the pod and calls the device plugin's Allocate before any container starts.
      allocated(namespace, name, nodeName);
    }
  }

  /** The device plugin's Allocate succeeded: the bind is a success and the node's lock is freed. */
  private void allocated(String namespace, String name, String nodeName) {
    patchAnnotations(client.pods().inNamespace(namespace).withName(name), Map.of(BIND_PHASE, "success"));
    Map<String, String> remove = new HashMap<>();
    remove.put(NODE_LOCK, null);
    patchAnnotations(client.nodes().withName(nodeName), remove);
  }

  /**
   * Completes an Allocate a pass left half done (a bound pod still {@code allocating}), and drops a lock whose pod is
   * gone or bound, as the device plugin does.
   */
  private void releaseLocks(Map<String, Node> nodes, List<Pod> pods) {
    Map<String, Pod> byKey = pods.stream().collect(Collectors.toMap(
        p -> p.getMetadata().getNamespace() + "," + p.getMetadata().getName(), p -> p, (a, b) -> a));
    for (Pod pod : pods) {
      Map<String, String> a = annotations(pod.getMetadata().getAnnotations());
      if ("allocating".equals(a.get(BIND_PHASE)) && pod.getSpec().getNodeName() != null) {
        allocated(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), pod.getSpec().getNodeName());
      }
    }
    for (Node node : nodes.values()) {
      String lock = annotations(node.getMetadata().getAnnotations()).get(NODE_LOCK);
      if (lock == null) {
        continue;
      }
      String[] parts = lock.split(",", 2);
      Pod holder = parts.length == 2 ? byKey.get(parts[1]) : null;
      if (holder == null || holder.getSpec().getNodeName() != null) {
        Map<String, String> remove = new HashMap<>();
        remove.put(NODE_LOCK, null);
        patchAnnotations(client.nodes().withName(node.getMetadata().getName()), remove);
      }
    }
  }

  /** Writes kube-scheduler's verdict: {@code 0/3 nodes are available: 1 CardCordoned, 2 node(s) didn't match ...}. */
  private void refuse(Pod pod, int nodeCount, Map<String, Integer> refusals) {
    String message = "0/" + nodeCount + " nodes are available: " + refusals.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .map(e -> e.getValue() + " " + e.getKey()).collect(Collectors.joining(", ")) + ".";
    PodCondition existing = pod.getStatus() == null || pod.getStatus().getConditions() == null ? null
        : pod.getStatus().getConditions().stream().filter(c -> "PodScheduled".equals(c.getType())).findFirst()
            .orElse(null);
    if (existing != null && message.equals(existing.getMessage())) {
      return;
    }
    String condition = "{\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\","
        + "\"reason\":\"Unschedulable\",\"message\":" + quote(message) + ",\"lastTransitionTime\":\""
        + clock.instant().truncatedTo(ChronoUnit.SECONDS) + "\"}]}}";
    client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
        .subresource("status").patch(PatchContext.of(
            PatchType.STRATEGIC_MERGE), condition);
    log.info("HAMi stand-in cannot place pod {}/{}: {}", pod.getMetadata().getNamespace(), pod.getMetadata().getName(),
        message);
  }

  private static String quote(String text) {
    try {
      return JSON.writeValueAsString(text);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void patchAnnotations(Resource<?> resource, Map<String, String> values) {
    resource.patch(PatchContext.of(
        PatchType.JSON_MERGE), "{\"metadata\":{\"annotations\":"
        + quoteMap(values) + "}}");
  }

  private static String quoteMap(Map<String, String> values) {
    try {
      return JSON.writeValueAsString(values);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean unbound(Pod pod) {
    return (pod.getSpec().getNodeName() == null || pod.getSpec().getNodeName().isEmpty())
        && pod.getMetadata().getDeletionTimestamp() == null;
  }

  private static Map<String, Usage> copy(Map<String, Usage> usage) {
    Map<String, Usage> copy = new HashMap<>();
    usage.forEach((k, v) -> {
      Usage u = new Usage();
      u.pods = v.pods;
      u.memoryMib = v.memoryMib;
      u.cores = v.cores;
      copy.put(k, u);
    });
    return copy;
  }

  private static String allocatable(Node node, String resource) {
    Quantity q = node.getStatus() == null || node.getStatus().getAllocatable() == null ? null
        : node.getStatus().getAllocatable().get(resource);
    return q == null ? "0" : q.toString();
  }

  private static Map<String, String> annotations(Map<String, String> map) {
    return map == null ? Map.of() : map;
  }

  @Override
  public void close() {
    loop.shutdownNow();
    changes.close();
  }
}
