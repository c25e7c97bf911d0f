package io.gshare.api.internalplane;

import io.gshare.api.node.XidResponder;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.gshare.contract.internal.InventoryReport;
import io.gshare.contract.internal.SessionStatus;
import io.gshare.contract.internal.StatusReport;
import io.gshare.contract.internal.UsageAnswer;
import io.gshare.contract.internal.UsageReport;
import io.gshare.contract.internal.VolumeSync;
import io.gshare.contract.internal.VolumeSync.VolumeState;
import io.gshare.contract.internal.VolumeSyncAnswer;
import io.gshare.core.cluster.Cluster;
import io.gshare.core.cluster.ClusterRepository;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.node.InventoryWriter;
import io.gshare.core.session.SessionReports;
import io.gshare.core.volume.VolumeRepository;
import io.gshare.core.volume.VolumeSyncs;
import io.gshare.workflows.session.PodPhase;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Applies cluster-worker reports. Each report is one transaction that first checks every object it
 * names against the token's cluster: one object of another cluster and the whole report is refused
 * with 403, nothing written (not even the part that was in scope). The statements are core's; the
 * transaction is here because the scope check sits between their reads and their writes.
 */
@Service
class InternalReportService {

  private final InventoryWriter nodes;
  private final SessionReports sessions;
  private final VolumeRepository volumes;
  private final Access access;

  private final VolumeSyncs volumeSyncs;
  private final ClusterRepository clusters;

  private final MeterRegistry meters;
  private final SkewLog skewLog = new SkewLog();
  private final XidResponder xids;

  InternalReportService(InventoryWriter nodes, SessionReports sessions, VolumeRepository volumes, Access access,
      VolumeSyncs volumeSyncs, ClusterRepository clusters, MeterRegistry meters,
      XidResponder xids) {
    this.meters = meters;
    this.xids = xids;
    this.clusters = clusters;
    this.volumeSyncs = volumeSyncs;
    this.nodes = nodes;
    this.sessions = sessions;
    this.volumes = volumes;
    this.access = access;
  }

  @Transactional
  public InventoryWriter.Applied inventory(Caller.Operator caller, InventoryReport report) {
    access.requireSameCluster(caller, "cluster", report.clusterId(), report.clusterId());
    Set<String> hostnames = new LinkedHashSet<>();
    report.nodes().forEach(n -> {
      if (!hostnames.add(n.hostname())) {
        throw new GshareException(ProblemCode.VALIDATION_FAILED, "node " + n.hostname() + " is reported twice");
      }
    });
    Set<String> uuids = new LinkedHashSet<>();
    report.nodes().forEach(n -> n.gpusOrEmpty().forEach(g -> {
      if (!uuids.add(g.uuid())) {
        throw new GshareException(ProblemCode.VALIDATION_FAILED, "GPU " + g.uuid() + " is reported twice");
      }
    }));
    // A compromised worker must not take over another cluster's cards by claiming their uuids.
    nodes.foreignGpus(caller.clusterId(), uuids).forEach((uuid, owner) ->
        access.requireSameCluster(caller, "gpu", uuid, owner));
    Timer.Sample sample = Timer.start(meters);
    InventoryWriter.Applied applied = nodes.apply(caller.clusterId(), report);
    sample.stop(meters.timer("gshare.inventory.report.duration"));
    rowsWritten("nodes_inserted", applied.nodesInserted());
    rowsWritten("nodes_updated", applied.nodesUpdated());
    rowsWritten("gpus_inserted", applied.gpusInserted());
    rowsWritten("gpus_updated", applied.gpusUpdated());
    rowsWritten("gpus_removed", applied.gpusRemoved());
    return applied;
  }

  /** {@code gshare_inventory_rows_written_total{change}}: what inventory reports changed, by kind of change. */
  private void rowsWritten(String change, int rows) {
    meters.counter("gshare.inventory.rows.written", "change", change).increment(rows);
  }

  /** What a status report changed, and the running sessions whose pods it says failed or vanished. */
  record StatusApplied(int written, Map<String, String> podsLost) {}

  @Transactional
  public StatusApplied sessionStatus(Caller.Operator caller, StatusReport report) {
    Map<String, String> clusterOf = sessions.clustersOf(report.sessions().stream()
        .map(SessionStatus::sessionId).collect(Collectors.toSet()));
    report.sessions().forEach(s -> access.requireSameCluster(caller, "session", s.sessionId(), clusterOf.get(s.sessionId())));
    int written = 0;
    for (SessionStatus s : report.sessions()) {
      written += sessions.applyStatus(s);
    }
    boolean anyEnded = report.sessions().stream().anyMatch(InternalReportService::podEnded);
    if (!report.complete() && !anyEnded) {
      return new StatusApplied(written, Map.of());
    }
    Set<String> running = sessions.runningOn(caller.clusterId());
    Map<String, String> lost = new HashMap<>();
    Set<String> reported = new LinkedHashSet<>();
    for (SessionStatus s : report.sessions()) {
      reported.add(s.sessionId());
      if (running.contains(s.sessionId()) && podEnded(s)) {
        lost.put(s.sessionId(), "the cluster reported the pod " + s.phase().toLowerCase(Locale.ROOT)
            + (s.message() == null ? "" : ": " + s.message()));
      }
    }
    if (report.complete()) {
      running.stream().filter(id -> !reported.contains(id))
          .forEach(id -> lost.put(id, "the cluster reported no pod for it"));
    }
    return new StatusApplied(written, lost);
  }

  @Transactional
  public UsageAnswer usage(Caller.Operator caller, UsageReport received) {
    ClockSkew skew = ClockSkew.of(received, Instant.now());
    if (skew.skewed()) {
      skewLog.warn(caller.clusterId(), skew.workerAhead());
    }
    UsageReport report = skew.corrected(received);
    Map<String, String> clusterOf = sessions.clustersOf(report.samples().stream()
        .map(UsageReport.Sample::sessionId).collect(Collectors.toSet()));
    report.samples().forEach(s -> access.requireSameCluster(caller, "session", s.sessionId(), clusterOf.get(s.sessionId())));
    int written = 0;
    for (UsageReport.Sample s : report.samples()) {
      written += sessions.recordUsage(caller.clusterId(), s);
    }
    xids.respond(caller, report.xids());
    Cluster.IdleReaping sources = clusters.idleReaping(caller.clusterId())
        .orElse(Cluster.IdleReaping.of(null, null));
    return new UsageAnswer(written, sources.prometheusUrl(), sources.hamiMonitorUrl());
  }

  /**
   * One transaction: every volume named must be in the cluster's scope (403 and nothing written
   * otherwise), then the claims, the pools' StorageClasses, and the answer of what to apply.
   */
  @Transactional
  public VolumeSyncAnswer volumes(Caller.Operator caller, VolumeSync sync) {
    Set<String> ids = sync.volumes().stream().map(VolumeState::volumeId).collect(Collectors.toSet());
    Set<String> inScope = volumes.inScopeOf(caller.clusterId(), ids);
    sync.volumes().forEach(v -> access.requireSameCluster(caller, "volume", v.volumeId(),
        inScope.contains(v.volumeId()) ? caller.clusterId() : null));
    return volumeSyncs.apply(caller.clusterId(), sync);
  }

  /** One warning per cluster every ten minutes, not one per report. */
  private static final class SkewLog {
    private static final Logger log = LoggerFactory.getLogger(ClockSkew.class);
    private static final Duration EVERY = Duration.ofMinutes(10);
    private final Map<String, Instant> lastWarned = new ConcurrentHashMap<>();

    void warn(String clusterId, Duration ahead) {
      Instant now = Instant.now();
      Instant last = lastWarned.get(clusterId);
      if (last == null || last.plus(EVERY).isBefore(now)) {
        lastWarned.put(clusterId, now);
        log.warn("the clock of cluster {}'s worker is {} s {} the control plane's: its usage samples are moved onto the"
            + " control plane's clock; synchronise the nodes' time (NTP)", clusterId, Math.abs(ahead.toSeconds()),
            ahead.isNegative() ? "behind" : "ahead of");
      }
    }
  }

  private static boolean podEnded(SessionStatus status) {
    PodPhase phase = PodPhase.of(status.phase());
    return phase != null && phase.ended();
  }
}
