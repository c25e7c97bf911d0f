package io.gshare.core.node;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The inventory as the API shows it: nodes with their GPUs and liveness, and GPUs with where they are. */
@Repository
public class NodeQueries {

  public record Gpu(String uuid, int index, String model, long memoryMib, int coresPercent, int splitCount,
      boolean healthy, boolean cordoned) {}

  /**
   * @param lastSeenAt the last report naming the node (for a removed node, about when it left the report)
   * @param removedAt when the node left its cluster's report; null while it is reported
   * @param drainState {@code draining} or {@code drained} while a drain holds the node out of placement
   *     (POST /api/v1/nodes/{id}/uncordon clears it); null otherwise
   */
  public record Node(String id, String clusterId, String hostname, NodeLiveness liveness, GpuMode gpuMode, String poolId,
      boolean schedulable, boolean losslessPause, Map<String, String> labels, Map<String, String> capacity,
      Instant lastSeenAt, Instant removedAt, String drainState, String drainReason, List<Gpu> gpus) {}

  /** A GPU with where it is. */
  public record GpuLocation(String uuid, int index, String model, long memoryMib, int coresPercent, int splitCount,
      boolean healthy, boolean cordoned, String nodeId, String hostname, String clusterId) {}

  /**
   * Filters of the inventory view; null means any.
   *
   * @param includeRemoved also nodes gone from their cluster's report (offline, until an admin deletes them)
   */
  public record Filter(String clusterId, String poolId, String liveness, String gpuMode, boolean includeRemoved) {

    public Filter(String clusterId, String poolId, String liveness, String gpuMode) {
      this(clusterId, poolId, liveness, gpuMode, false);
    }
  }

  /**
   * A node's liveness as the API shows it, over {@code nodes n join clusters c} with the parameter
   * {@code :stale} (seconds): {@code offline} once the node has left its cluster's report or the cluster's
   * reports have stopped for the stale time, else what the last report said ({@code ready}, {@code not_ready}).
   */
  static final String EFFECTIVE_LIVENESS = """
      case when n.removed_at is not null or c.inventory_at is null
                or c.inventory_at < now() - make_interval(secs => :stale)
           then 'offline' else n.liveness end""";

  private final JdbcClient jdbc;
  private final ObjectMapper json;

  NodeQueries(JdbcClient jdbc, ObjectMapper json) {
    this.jdbc = jdbc;
    this.json = json;
  }

  public List<Node> list(Filter filter, Duration staleAfter) {
    StringBuilder sql = new StringBuilder("""
        select * from (
          select n.*, coalesce(n.removed_at, c.inventory_at) as reported_at,
                 %s as effective_liveness
            from nodes n join clusters c on c.id = n.cluster_id
           where n.removed_at is null or :include_removed) v where true""".formatted(EFFECTIVE_LIVENESS));
    Map<String, Object> params = new HashMap<>();
    params.put("stale", staleAfter.toSeconds());
    params.put("include_removed", filter.includeRemoved());
    where(sql, params, "cluster_id", filter.clusterId());
    where(sql, params, "pool_id", filter.poolId());
    where(sql, params, "effective_liveness", filter.liveness());
    where(sql, params, "gpu_mode", filter.gpuMode());
    sql.append(" order by cluster_id, hostname");
    List<Node> nodes = jdbc.sql(sql.toString()).params(params).query((rs, n) -> new Node(rs.getString("id"),
        rs.getString("cluster_id"), rs.getString("hostname"), NodeLiveness.fromWire(rs.getString("effective_liveness")),
        GpuMode.fromWire(rs.getString("gpu_mode")),
        rs.getString("pool_id"), rs.getBoolean("schedulable"), rs.getBoolean("lossless_pause"),
        labels(rs.getString("labels")), labels(rs.getString("capacity")), instant(rs.getTimestamp("reported_at")),
        instant(rs.getTimestamp("removed_at")), rs.getString("drain_state"), rs.getString("drain_reason"),
        List.of())).list();
    if (nodes.isEmpty()) {
      return nodes;
    }
    Map<String, List<Gpu>> gpus = new HashMap<>();
    jdbc.sql("select * from gpu_devices where node_id = any(:ids) order by node_id, device_index")
        .param("ids", nodes.stream().map(Node::id).toArray(String[]::new))
        .query((rs, n) -> gpus.computeIfAbsent(rs.getString("node_id"), k -> new ArrayList<>()).add(gpu(rs)))
        .list();
    return nodes.stream().map(n -> new Node(n.id(), n.clusterId(), n.hostname(), n.liveness(), n.gpuMode(), n.poolId(),
        n.schedulable(), n.losslessPause(), n.labels(), n.capacity(), n.lastSeenAt(), n.removedAt(), n.drainState(),
        n.drainReason(),
        gpus.getOrDefault(n.id(), List.of()))).toList();
  }

  /** GPUs of nodes still in their cluster's inventory; {@code model} matches exactly, as offerings do. */
  public List<GpuLocation> gpus(String model, String nodeId, String clusterId) {
    StringBuilder sql = new StringBuilder("""
        select * from (
          select g.*, n.hostname, n.cluster_id from gpu_devices g join nodes n on n.id = g.node_id
           where n.removed_at is null) v where true""");
    Map<String, Object> params = new HashMap<>();
    where(sql, params, "model", model);
    where(sql, params, "node_id", nodeId);
    where(sql, params, "cluster_id", clusterId);
    sql.append(" order by cluster_id, hostname, device_index");
    return jdbc.sql(sql.toString()).params(params).query(NodeQueries::gpuLocation).list();
  }

  private static GpuLocation gpuLocation(ResultSet rs, int row) throws SQLException {
    return new GpuLocation(rs.getString("uuid"), rs.getInt("device_index"), rs.getString("model"),
        rs.getLong("memory_mib"), rs.getInt("cores_percent"), rs.getInt("split_count"), rs.getBoolean("healthy"),
        rs.getBoolean("cordoned"), rs.getString("node_id"), rs.getString("hostname"), rs.getString("cluster_id"));
  }

  /** One GPU with where it is, whether or not its node is still in its cluster's report. */
  public Optional<GpuLocation> gpu(String uuid) {
    return jdbc.sql("""
        select g.*, n.hostname, n.cluster_id from gpu_devices g join nodes n on n.id = g.node_id where g.uuid = :uuid
        """).param("uuid", uuid).query(NodeQueries::gpuLocation).optional();
  }

  private static void where(StringBuilder sql, Map<String, Object> params, String column, String value) {
    if (value != null) {
      sql.append(" and ").append(column).append(" = :").append(column);
      params.put(column, value);
    }
  }

  static Gpu gpu(ResultSet rs) throws SQLException {
    return new Gpu(rs.getString("uuid"), rs.getInt("device_index"), rs.getString("model"), rs.getLong("memory_mib"),
        rs.getInt("cores_percent"), rs.getInt("split_count"), rs.getBoolean("healthy"), rs.getBoolean("cordoned"));
  }

  private Map<String, String> labels(String value) {
    return NodeJson.labels(json, value);
  }

  private static Instant instant(Timestamp ts) {
    return ts == null ? null : ts.toInstant();
  }
}
