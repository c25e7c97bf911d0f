package io.gshare.core.session;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

@Repository
public class SessionRepository {

  public record Session(String id, String userId, String name, String state, String stateReason, String clusterId,
      String clusterName, String nodeId, String nodeHostname, String gpuModel, String mode, BigDecimal pricePerHour,
      String imageReference, String volumeId, String pauseKind, String url, String podPhase, Instant createdAt,
      Instant startedAt, Instant endedAt) {}

  /** Filters an admin may apply; a user's list is always their own. */
  public record Filter(String userId, String clusterId, String nodeId, String state) {}

  private final JdbcClient jdbc;

  SessionRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** A GPU a session holds now. */
  public record HeldGpu(String uuid, String hostname, Integer gpumemMib, Integer gpucoresPercent) {}

  public List<HeldGpu> heldGpusOf(String sessionId) {
    return jdbc.sql("""
        select a.gpu_uuid, n.hostname, a.gpumem_mib, a.gpucores_percent from allocations a
          left join nodes n on n.id = a.node_id where a.session_id = :s and a.released_at is null order by a.gpu_uuid
        """).param("s", sessionId)
        .query((rs, n) -> new HeldGpu(rs.getString(1), rs.getString(2), (Integer) rs.getObject(3), (Integer) rs.getObject(4)))
        .list();
  }

  /** Credits charged to the session so far: minutes and settlements, less refunds. */
  public java.math.BigDecimal costSoFar(String sessionId) {
    return jdbc.sql("select coalesce(-sum(amount), 0) from credit_ledger where session_id = :s")
        .param("s", sessionId).query(java.math.BigDecimal.class).single();
  }

  /** What a session URL check needs: the owner, the cluster's session domain, the state. */
  public record UrlTarget(String userId, String sessionDomain, String state) {}

  public Optional<UrlTarget> urlTargetOf(String sessionId) {
    return jdbc.sql("""
        select s.user_id, c.session_domain, s.state
          from sessions s left join clusters c on c.id = s.cluster_id
         where s.id = :id
        """)
        .param("id", sessionId)
        .query((rs, n) -> new UrlTarget(rs.getString(1), rs.getString(2), rs.getString(3)))
        .optional();
  }

  /** What a session asked for when it was placed: its user, offering and cluster (a resume stays there). */
  public record PlacementAsk(String userId, String offeringId, String clusterId) {}

  public PlacementAsk placementAskOf(String sessionId) {
    return jdbc.sql("select user_id, offering_id, cluster_id from sessions where id = :id").param("id", sessionId)
        .query((rs, n) -> new PlacementAsk(rs.getString(1), rs.getString(2), rs.getString(3))).single();
  }

  /** Writes the state a session's workflow reached, with what comes with it (URL, node, pause kind, checkpoint). */
  public void record(io.gshare.workflows.session.SessionRecord r) {
    jdbc.sql("""
        update sessions set
               state = :state,
               state_reason = :reason,
               url = case when :state = 'running' then coalesce(:url, url) else null end,
               node_id = case when :state in ('running', 'creating', 'resuming') then coalesce(:node, node_id) else node_id end,
               node_hostname = coalesce(:host, node_hostname),
               pause_kind = case when :state = 'paused' then coalesce(:kind, pause_kind) when :state = 'running' then null
                                 else pause_kind end,
               checkpoint_image = case when :state = 'paused' then :checkpoint else checkpoint_image end,
               started_at = case when :state = 'running' then coalesce(started_at, now()) else started_at end,
               ended_at = case when :state in ('terminated', 'failed') then coalesce(ended_at, now()) else ended_at end
         where id = :id
        """)
        .param("id", r.sessionId()).param("state", r.state().wireName()).param("reason", r.reason()).param("url", r.url())
        .param("node", r.nodeId()).param("host", r.hostname())
        .param("kind", r.pauseKind() == null ? null : r.pauseKind().wireName()).param("checkpoint", r.checkpoint())
        .update();
  }

  public Optional<Session> findById(String id) {
    return jdbc.sql("select * from sessions where id = :id").param("id", id).query(SessionRepository::map).optional();
  }

  public List<Session> find(Filter filter, int limit) {
    StringBuilder sql = new StringBuilder("select * from sessions where true");
    Map<String, Object> params = new LinkedHashMap<>();
    add(sql, params, "user_id", filter.userId());
    add(sql, params, "cluster_id", filter.clusterId());
    add(sql, params, "node_id", filter.nodeId());
    add(sql, params, "state", filter.state());
    sql.append(" order by created_at desc, id limit :limit");
    params.put("limit", limit);
    return jdbc.sql(sql.toString()).params(params).query(SessionRepository::map).list();
  }

  private static void add(StringBuilder sql, Map<String, Object> params, String column, String value) {
    if (value != null) {
      sql.append(" and ").append(column).append(" = :").append(column);
      params.put(column, value);
    }
  }

  private static Session map(ResultSet rs, int row) throws SQLException {
    return new Session(rs.getString("id"), rs.getString("user_id"), rs.getString("name"), rs.getString("state"),
        rs.getString("state_reason"), rs.getString("cluster_id"), rs.getString("cluster_name"), rs.getString("node_id"),
        rs.getString("node_hostname"), rs.getString("gpu_model"), rs.getString("mode"), rs.getBigDecimal("price_per_hour"),
        rs.getString("image_reference"), rs.getString("volume_id"), rs.getString("pause_kind"), rs.getString("url"),
        rs.getString("pod_phase"), instant(rs.getTimestamp("created_at")), instant(rs.getTimestamp("started_at")),
        instant(rs.getTimestamp("ended_at")));
  }

  private static Instant instant(Timestamp ts) {
    return ts == null ? null : ts.toInstant();
  }
}
