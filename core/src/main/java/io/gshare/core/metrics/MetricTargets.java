package io.gshare.core.metrics;

import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.workflows.kube.KubeNames;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Resolves what a metric query is about from gShare's rows: an id a caller sent is looked up, and only what the rows
 * say (a cluster's Prometheus, a hostname, card UUIDs, a session's pod) reaches the PromQL. An id of nothing is 404.
 */
@Repository
public class MetricTargets {

  /** The session container's name in its pod (the worker's SessionObjects.CONTAINER). */
  static final String SESSION_CONTAINER = "session";

  private final JdbcClient jdbc;

  MetricTargets(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public MetricTarget gpu(String gpuUuid) {
    record Row(String cluster, String hostname) {}
    Row row = jdbc.sql("""
        select n.cluster_id, n.hostname from gpu_devices g join nodes n on n.id = g.node_id where g.uuid = :u
        """).param("u", gpuUuid).query((rs, i) -> new Row(rs.getString(1), rs.getString(2))).optional()
        .orElseThrow(() -> GshareException.notFound("gpu", gpuUuid));
    return target(MetricQuery.Scope.GPU, row.cluster(), row.hostname(), List.of(gpuUuid), null);
  }

  public MetricTarget node(String nodeId) {
    record Row(String cluster, String hostname) {}
    Row row = jdbc.sql("select cluster_id, hostname from nodes where id = :n").param("n", nodeId)
        .query((rs, i) -> new Row(rs.getString(1), rs.getString(2))).optional()
        .orElseThrow(() -> GshareException.notFound("node", nodeId));
    List<String> uuids = jdbc.sql("select uuid from gpu_devices where node_id = :n order by device_index")
        .param("n", nodeId).query(String.class).list();
    return target(MetricQuery.Scope.NODE, row.cluster(), row.hostname(), uuids, null);
  }

  /** A session's cards are every card it held (a migrated session's too), so its history is whole. */
  public MetricTarget session(String sessionId) {
    String cluster = jdbc.sql("select cluster_id from sessions where id = :s").param("s", sessionId)
        .query(String.class).optional().orElseThrow(() -> GshareException.notFound("session", sessionId));
    if (cluster == null) {
      throw new GshareException(ProblemCode.CONFLICT, "session " + sessionId + " was never placed: it has no metrics");
    }
    List<String> uuids = jdbc.sql("select distinct gpu_uuid from allocations where session_id = :s order by gpu_uuid")
        .param("s", sessionId).query(String.class).list();
    return target(MetricQuery.Scope.SESSION, cluster, null, uuids, KubeNames.of("gshare", sessionId));
  }

  public MetricTarget cluster(String clusterId) {
    Integer known = jdbc.sql("select count(*) from clusters where id = :c and status <> 'detached'")
        .param("c", clusterId).query(Integer.class).single();
    if (known == 0) {
      throw GshareException.notFound("cluster", clusterId);
    }
    return target(MetricQuery.Scope.CLUSTER, clusterId, null, List.of(), null);
  }

  private MetricTarget target(MetricQuery.Scope scope, String clusterId, String hostname, List<String> uuids, String pod) {
    String prometheus = jdbc.sql("select prometheus_url from clusters where id = :c").param("c", clusterId)
        .query(String.class).optional().orElse(null);
    return new MetricTarget(scope, clusterId, prometheus, hostname, uuids, KubeNames.SESSIONS_NAMESPACE, pod,
        pod == null ? null : SESSION_CONTAINER);
  }
}
