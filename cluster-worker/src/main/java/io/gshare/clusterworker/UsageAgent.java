package io.gshare.clusterworker;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.model.SessionObjects;
import io.gshare.contract.internal.InternalPaths;
import io.gshare.contract.internal.LiveUsage;
import io.gshare.workflows.kube.LabelKeys;
import io.gshare.workflows.session.PodPhase;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The usage agent ({@code gshare-cluster-worker agent}, one pod per node when the operator sets {@code agent.enabled}):
 * every interval, what each running session container of its node uses, from the node's cgroups
 * ({@link CgroupSampler}) and, when a monitor is set, HAMi's GPU series ({@link HamiGpuSeries}), posted as one
 * {@link LiveUsage} to {@code /internal/v1/usage/live}. Only the console's live chart reads it, so it is live data:
 * a failed post is dropped, never retried or queued, and nothing else waits for it.
 *
 * <p>The session pods are listed again every {@link #POD_REFRESH} rather than every tick (a list per node per second
 * would load the API server for a chart) and not watched (a watch with a {@code spec.nodeName} selector is what the
 * simulator cannot serve); a pod that has gone since simply has no cgroup left to read. Without a node name (the dev
 * runtime's one process) every node's session pods are sampled and posted per node, as each node's agent would.
 * A tick with no samples posts nothing. Ticks run at a fixed delay ({@link ReportLoop}): rates are computed over the
 * time actually elapsed, so a slow tick stretches a point, it does not distort it.
 */
public final class UsageAgent {

  private static final Logger log = LoggerFactory.getLogger(UsageAgent.class);

  /** How long a list of the session pods is used before it is listed again. */
  static final Duration POD_REFRESH = Duration.ofSeconds(5);
  /** At most one log line per kind of trouble (the HAMi monitor, the pod list) this often. */
  static final Duration LOG_EVERY = Duration.ofMinutes(1);

  private final String nodeName;
  private final KubernetesClient kubernetes;
  private final ControlPlaneClient controlPlane;
  private final CgroupSampler sampler;
  private final HamiGpuSeries hami;
  private final Clock clock;
  private final LongSupplier nanoTime;
  private final long podRefreshNanos;
  private final Map<String, Long> loggedAt = new HashMap<>();
  private List<Pod> pods = List.of();
  private long listedAt;
  private boolean listed;

  UsageAgent(String nodeName, KubernetesClient kubernetes, ControlPlaneClient controlPlane, CgroupSampler sampler,
      HamiGpuSeries hami, Clock clock, LongSupplier nanoTime, Duration podRefresh) {
    this.nodeName = nodeName;
    this.kubernetes = kubernetes;
    this.controlPlane = controlPlane;
    this.sampler = sampler;
    this.hami = hami;
    this.clock = clock;
    this.nanoTime = nanoTime;
    this.podRefreshNanos = podRefresh.toNanos();
  }

  /**
   * Starts sampling on a daemon thread; closing it stops the loop. The Kubernetes client stays the caller's to close.
   */
  public static AutoCloseable start(UsageAgentConfig config, KubernetesClient kubernetes) {
    return start(config, kubernetes, POD_REFRESH);
  }

  static AutoCloseable start(UsageAgentConfig config, KubernetesClient kubernetes, Duration podRefresh) {
    UsageAgent agent = new UsageAgent(config.nodeName(), kubernetes,
        new ControlPlaneClient(config.controlPlaneUrl(), new TokenFile(config.tokenFile())),
        new CgroupSampler(config.cgroupRoot()),
        config.hamiMonitorUrl() == null ? null : new HamiGpuSeries(config.hamiMonitorUrl()),
        Clock.systemUTC(), System::nanoTime, podRefresh);
    log.info("usage agent samples the session pods of {} from the cgroups under {}{} every {} ms and posts them to {}",
        config.nodeName() == null ? "every node" : "node " + config.nodeName(), config.cgroupRoot(),
        config.hamiMonitorUrl() == null ? "" : " and HAMi's monitor " + config.hamiMonitorUrl(),
        config.interval().toMillis(), config.controlPlaneUrl());
    return new ReportLoop("live usage", agent::tick).start(config.interval());
  }

  /**
   * Samples every running session pod and posts each node's samples; throws the first failed post after trying every
   * node, for {@link ReportLoop} to log once per change of answer.
   */
  void tick() throws Exception {
    Map<String, List<LiveUsage.SessionSample>> byNode = sample();
    Exception failed = null;
    for (Map.Entry<String, List<LiveUsage.SessionSample>> node : byNode.entrySet()) {
      try {
        controlPlane.post(InternalPaths.LIVE_USAGE, new LiveUsage(node.getKey(), node.getValue()));
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        failed = failed == null ? e : failed;
      }
    }
    if (failed != null) {
      throw failed;
    }
  }

  /** This tick's samples by node; a pod without a sample yet (its first reading) is left out. */
  Map<String, List<LiveUsage.SessionSample>> sample() throws InterruptedException {
    List<Pod> running = sessionPods();
    Map<String, HamiGpuSeries.PodGpu> gpu = gpu();
    Instant sampledAt = clock.instant();
    Map<String, List<LiveUsage.SessionSample>> byNode = new TreeMap<>();
    Set<String> uids = new HashSet<>();
    for (Pod pod : running) {
      String uid = pod.getMetadata().getUid();
      String session = pod.getMetadata().getLabels().get(LabelKeys.SESSION_ID);
      String node = pod.getSpec().getNodeName();
      if (uid == null || session == null || session.isBlank() || node == null) {
        continue;
      }
      uids.add(uid);
      sampler.sample(uid, containerIds(pod)).ifPresent(usage -> {
        HamiGpuSeries.PodGpu g = gpu == null ? null : gpu.get(pod.getMetadata().getName());
        byNode.computeIfAbsent(node, n -> new ArrayList<>()).add(new LiveUsage.SessionSample(session, sampledAt,
            usage.cpuCores(), usage.memoryBytes(), usage.ioReadBytesPerSecond(), usage.ioWriteBytesPerSecond(),
            g == null ? null : g.memoryBytes(), g == null ? null : g.utilPercent()));
      });
    }
    sampler.retain(uids);
    return byNode;
  }

  /** The running containers' ids of the pod. */
  static List<String> containerIds(Pod pod) {
    List<String> ids = new ArrayList<>();
    if (pod.getStatus() != null && pod.getStatus().getContainerStatuses() != null) {
      for (ContainerStatus container : pod.getStatus().getContainerStatuses()) {
        String id = CgroupSampler.containerId(container.getContainerID());
        if (id != null && (container.getState() == null || container.getState().getRunning() != null)) {
          ids.add(id);
        }
      }
    }
    return ids;
  }

  /** HAMi's figures by pod name; empty without a monitor, null when it did not answer (no GPU figures this tick). */
  private Map<String, HamiGpuSeries.PodGpu> gpu() throws InterruptedException {
    if (hami == null) {
      return Map.of();
    }
    try {
      return hami.scrape();
    } catch (IOException | RuntimeException e) {
      if (due("hami")) {
        log.warn("could not scrape the HAMi monitor at {} ({}): the live usage goes without GPU figures", hami.url(),
            e.toString());
      }
      return null;
    }
  }

  /** The running session pods of the node (of every node without a node name), listed again when the list is old. */
  private List<Pod> sessionPods() {
    long now = nanoTime.getAsLong();
    if (!listed || now - listedAt >= podRefreshNanos) {
      try {
        var query = kubernetes.pods().inNamespace(SessionObjects.NAMESPACE).withLabel(LabelKeys.SESSION_ID);
        pods = (nodeName == null ? query : query.withField("spec.nodeName", nodeName)).list().getItems().stream()
            .filter(p -> p.getStatus() != null && PodPhase.of(p.getStatus().getPhase()) == PodPhase.RUNNING).toList();
      } catch (RuntimeException e) {
        if (due("pods")) {
          log.warn("could not list the session pods ({}); sampling the ones listed before", e.toString());
        }
      }
      listed = true;
      listedAt = now;
    }
    return pods;
  }

  /** Whether a line about {@code what} may be logged now: at most one per {@link #LOG_EVERY}. */
  private boolean due(String what) {
    long now = nanoTime.getAsLong();
    Long last = loggedAt.get(what);
    if (last != null && now - last < LOG_EVERY.toNanos()) {
      return false;
    }
    loggedAt.put(what, now);
    return true;
  }
}
