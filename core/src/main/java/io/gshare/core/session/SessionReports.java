package io.gshare.core.session;

import io.gshare.contract.internal.SessionStatus;
import io.gshare.contract.internal.UsageReport;
import java.sql.Timestamp;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * What a cluster-worker reports about its sessions: pod status and GPU usage. The caller checks each
 * session against the reporting cluster ({@link #clustersOf}) and holds the transaction around a report.
 */
@Repository
public class SessionReports {

  private final JdbcClient jdbc;

  SessionReports(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** The cluster of each named session; ids that do not exist are absent. */
  public Map<String, String> clustersOf(Set<String> sessionIds) {
    Map<String, String> result = new HashMap<>();
    if (sessionIds.isEmpty()) {
      return result;
    }
    jdbc.sql("select id, cluster_id from sessions where id = any(:ids)")
        .param("ids", sessionIds.toArray(String[]::new))
        .query((rs, n) -> result.put(rs.getString(1), rs.getString(2)))
        .list();
    return result;
  }

  /** Records the pod behind the session; returns the rows written (0 when the session does not exist). */
  public int applyStatus(SessionStatus s) {
    // Only a change is written (reported_at: when the pod last changed), so a quiet tick writes no row.
    return jdbc.sql("""
        update sessions set pod_phase = :phase, pod_ip = :ip, node_hostname = coalesce(:node, node_hostname),
               reported_at = now()
         where id = :id
           and (pod_phase is distinct from :phase or pod_ip is distinct from :ip
                or node_hostname is distinct from coalesce(:node, node_hostname))
        """)
        .param("id", s.sessionId()).param("phase", s.phase()).param("ip", s.podIp()).param("node", s.node())
        .update();
  }

  /** The sessions in state running on the cluster. */
  public Set<String> runningOn(String clusterId) {
    return Set.copyOf(jdbc.sql("select id from sessions where cluster_id = :c and state = 'running'")
        .param("c", clusterId).query(String.class).list());
  }

  /** Appends one usage sample the cluster took; returns the rows written. */
  public int recordUsage(String clusterId, UsageReport.Sample s) {
    return jdbc.sql("""
        insert into session_usage (session_id, cluster_id, gpu_uuid, gpu_util_percent, memory_used_mib, sampled_at,
                                   last_kernel_at, source)
        values (:s, :c, :g, :u, :m, :at, :k, :src)
        """)
        .param("s", s.sessionId()).param("c", clusterId).param("g", s.gpuUuid())
        .param("u", s.gpuUtilPercent()).param("m", s.memoryUsedMib()).param("at", Timestamp.from(s.sampledAt()))
        .param("k", s.lastKernelAt() == null ? null : Timestamp.from(s.lastKernelAt())).param("src", s.source())
        .update();
  }
}
