package io.gshare.api.internalplane;

import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.node.InventoryWriter;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.gshare.contract.internal.InventoryReport;
import io.gshare.contract.internal.SessionStatus;
import io.gshare.contract.internal.StatusReport;
import io.gshare.contract.internal.UsageReport;
import io.gshare.contract.internal.VolumeSync;
import io.gshare.contract.internal.VolumeSync.VolumeState;
import java.sql.Timestamp;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Applies cluster-worker reports. Each report is one transaction that first checks every object it
 * names against the token's cluster: one object of another cluster and the whole report is refused
 * with 403, nothing written (not even the part that was in scope).
 */
@Service
class InternalReportService {

  private final JdbcClient jdbc;
  private final InventoryWriter nodes;
  private final Access access;

  InternalReportService(JdbcClient jdbc, InventoryWriter nodes, Access access) {
    this.jdbc = jdbc;
    this.nodes = nodes;
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
    return nodes.apply(caller.clusterId(), report);
  }

  /** What a status report changed, and the running sessions whose pods it says failed or vanished. */
  record StatusApplied(int written, Map<String, String> podsLost) {}

  @Transactional
  public StatusApplied sessionStatus(Caller.Operator caller, StatusReport report) {
    Map<String, String> clusterOf = clustersOf("sessions", report.sessions().stream()
        .map(SessionStatus::sessionId).collect(Collectors.toSet()));
    report.sessions().forEach(s -> access.requireSameCluster(caller, "session", s.sessionId(), clusterOf.get(s.sessionId())));
    int written = 0;
    for (SessionStatus s : report.sessions()) {
      // Only a change is written (reported_at: when the pod last changed), so a quiet tick writes no row.
      written += jdbc.sql("""
          update sessions set pod_phase = :phase, pod_ip = :ip, node_hostname = coalesce(:node, node_hostname),
                 reported_at = now()
           where id = :id
             and (pod_phase is distinct from :phase or pod_ip is distinct from :ip
                  or node_hostname is distinct from coalesce(:node, node_hostname))
          """)
          .param("id", s.sessionId()).param("phase", s.phase()).param("ip", s.podIp()).param("node", s.node())
          .update();
    }
    boolean anyEnded = report.sessions().stream().anyMatch(s -> "Failed".equals(s.phase()) || "Succeeded".equals(s.phase()));
    if (!report.complete() && !anyEnded) {
      return new StatusApplied(written, Map.of());
    }
    Set<String> running = Set.copyOf(jdbc.sql("select id from sessions where cluster_id = :c and state = 'running'")
        .param("c", caller.clusterId()).query(String.class).list());
    Map<String, String> lost = new HashMap<>();
    Set<String> reported = new LinkedHashSet<>();
    for (SessionStatus s : report.sessions()) {
      reported.add(s.sessionId());
      if (running.contains(s.sessionId()) && ("Failed".equals(s.phase()) || "Succeeded".equals(s.phase()))) {
        lost.put(s.sessionId(), "the cluster reported the pod " + s.phase().toLowerCase()
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
  public int usage(Caller.Operator caller, UsageReport report) {
    Map<String, String> clusterOf = clustersOf("sessions", report.samples().stream()
        .map(UsageReport.Sample::sessionId).collect(Collectors.toSet()));
    report.samples().forEach(s -> access.requireSameCluster(caller, "session", s.sessionId(), clusterOf.get(s.sessionId())));
    int written = 0;
    for (UsageReport.Sample s : report.samples()) {
      written += jdbc.sql("""
          insert into session_usage (session_id, cluster_id, gpu_uuid, gpu_util_percent, memory_used_mib, sampled_at)
          values (:s, :c, :g, :u, :m, :at)
          """)
          .param("s", s.sessionId()).param("c", caller.clusterId()).param("g", s.gpuUuid())
          .param("u", s.gpuUtilPercent()).param("m", s.memoryUsedMib()).param("at", Timestamp.from(s.sampledAt()))
          .update();
    }
    return written;
  }

  @Transactional
  public int volumes(Caller.Operator caller, VolumeSync sync) {
    Set<String> ids = sync.volumes().stream().map(VolumeState::volumeId).collect(Collectors.toSet());
    // A volume is in a cluster's scope when the cluster holds a claim for it or runs a session using it.
    Set<String> inScope = new java.util.HashSet<>(jdbc.sql("""
        select v.id from volumes v
         where v.id = any(:ids)
           and (exists (select 1 from volume_claims c where c.volume_id = v.id and c.cluster_id = :cluster)
                or exists (select 1 from sessions s where s.volume_id = v.id and s.cluster_id = :cluster))
        """)
        .param("ids", ids.toArray(String[]::new)).param("cluster", caller.clusterId())
        .query(String.class).list());
    sync.volumes().forEach(v -> access.requireSameCluster(caller, "volume", v.volumeId(),
        inScope.contains(v.volumeId()) ? caller.clusterId() : null));
    int written = 0;
    for (VolumeState v : sync.volumes()) {
      written += jdbc.sql("""
          insert into volume_claims (volume_id, cluster_id, pvc_name, phase, capacity_bytes, synced_at)
          values (:v, :c, :pvc, :phase, :cap, now())
          on conflict (volume_id, cluster_id) do update set pvc_name = excluded.pvc_name, phase = excluded.phase,
              capacity_bytes = excluded.capacity_bytes, synced_at = excluded.synced_at
          """)
          .param("v", v.volumeId()).param("c", caller.clusterId()).param("pvc", v.pvcName()).param("phase", v.phase())
          .param("cap", v.capacityBytes())
          .update();
      if (v.usedBytes() != null) {
        jdbc.sql("update volumes set used_bytes = :used where id = :v").param("used", v.usedBytes())
            .param("v", v.volumeId()).update();
      }
    }
    return written;
  }

  /** The cluster of each named row; names that do not exist are absent. */
  private Map<String, String> clustersOf(String table, Set<String> ids) {
    Map<String, String> result = new HashMap<>();
    if (ids.isEmpty()) {
      return result;
    }
    jdbc.sql("select id, cluster_id from " + table + " where id = any(:ids)")
        .param("ids", ids.toArray(String[]::new))
        .query((rs, n) -> result.put(rs.getString(1), rs.getString(2)))
        .list();
    return result;
  }
}
