package io.gshare.core.session;

import io.gshare.workflows.session.GpuPlacement;
import io.gshare.workflows.session.PauseKind;
import io.gshare.workflows.session.SessionRecord;
import io.gshare.workflows.session.SessionState;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

@Repository
public class SessionRepository {

  public record Session(String id, String userId, String name, SessionState state, String stateReason, String clusterId,
      String clusterName, String nodeId, String nodeHostname, String gpuModel, String mode, BigDecimal pricePerHour,
      String imageReference, String volumeId, PauseKind pauseKind, String url, String podPhase, Instant createdAt,
      Instant startedAt, Instant endedAt, Idle idle) {}

  /**
   * What the idle reaper last learned about a running session (null otherwise): the signal it reads
   * ({@code dcgm}, {@code hami}, or {@code none} when the cluster has no source or no recent measurement), since
   * when the GPUs showed no activity, when they were last active, and, once the pause nears, a warning in words
   * and when it will come.
   */
  public record Idle(String source, Instant idleSince, Instant lastActivityAt, String warning, Instant pauseAt) {}

  /** Filters an admin may apply; a user's list is always their own. */
  public record Filter(String userId, String clusterId, String nodeId, String state) {}

  private final JdbcClient jdbc;

  SessionRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** A new session's row, before it is placed. */
  public record NewSession(String id, String userId, String name, String offeringId, String gpuModel, String mode,
      BigDecimal pricePerHour, String imageId, String imageReference, String volumeId, String workflowId) {}

  /** Where a placed session's cluster serves it: its session domain, its name, its checkpoint registry. */
  public record ClusterTarget(String sessionDomain, String name, String checkpointRegistry) {}

  /** A session not ended, with what recovery needs to start its workflow again. */
  public record Unfinished(String id, String userId, String clusterId, SessionState state, String imageReference, int port,
      String path, String domain, String checkpoint, String mode, String model, String teamId, String volumeId,
      String checkpointRegistry, Duration runUsed) {}

  public void insertPending(NewSession n) {
    jdbc.sql("""
        insert into sessions (id, user_id, name, state, offering_id, gpu_model, mode, price_per_hour, image_id,
                              image_reference, volume_id, workflow_id)
        values (:id, :u, :name, 'pending', :o, :model, :mode, :price, :img, :ref, :vol, :wf)
        """)
        .param("id", n.id()).param("u", n.userId()).param("name", n.name()).param("o", n.offeringId())
        .param("model", n.gpuModel()).param("mode", n.mode()).param("price", n.pricePerHour())
        .param("img", n.imageId()).param("ref", n.imageReference()).param("vol", n.volumeId())
        .param("wf", n.workflowId())
        .update();
  }

  public ClusterTarget clusterTargetOf(String clusterId) {
    return jdbc.sql("select session_domain, name, checkpoint_registry from clusters where id = :c")
        .param("c", clusterId)
        .query((rs, n) -> new ClusterTarget(rs.getString(1), rs.getString(2), rs.getString(3))).single();
  }

  /** The session is placed: creating, on its cluster and node. */
  public void markPlaced(String sessionId, GpuPlacement where, String clusterName) {
    jdbc.sql("""
        update sessions set state = 'creating', cluster_id = :c, cluster_name = :cn, node_id = :n, node_hostname = :h
         where id = :id
        """)
        .param("id", sessionId).param("c", where.clusterId()).param("cn", clusterName).param("n", where.nodeId())
        .param("h", where.hostname()).update();
  }

  /** Ends a session as failed with the reason (its GPUs are the caller's to release). */
  public void markFailed(String sessionId, String reason) {
    jdbc.sql("update sessions set state = 'failed', state_reason = :r, ended_at = now() where id = :id")
        .param("id", sessionId).param("r", reason).update();
  }

  /** The sessions that hold this card now (an allocation not released). */
  public List<String> holding(String gpuUuid) {
    return jdbc.sql("select distinct session_id from allocations where gpu_uuid = :u and released_at is null order by 1")
        .param("u", gpuUuid).query(String.class).list();
  }

  /** The sessions of a cluster that have not ended (placed there: running, paused, or on their way), oldest first. */
  public List<String> unendedOn(String clusterId) {
    return jdbc.sql("""
        select id from sessions where cluster_id = :c and state not in ('terminated', 'failed') order by created_at, id
        """).param("c", clusterId).query(String.class).list();
  }

  /** An unended session using the volume, as (id, state); empty when the volume is free. */
  public Optional<String[]> unendedSessionOn(String volumeId) {
    return jdbc.sql("select id, state from sessions where volume_id = :v and state not in ('terminated', 'failed') limit 1")
        .param("v", volumeId)
        .query((rs, n) -> new String[] {rs.getString(1), rs.getString(2)})
        .optional();
  }

  public Optional<SessionState> stateOf(String sessionId) {
    return jdbc.sql("select state from sessions where id = :id").param("id", sessionId).query(String.class).optional()
        .map(SessionState::fromWire);
  }

  /** Every session not ended, with the run so far (its open billing window opened when it started running). */
  public List<Unfinished> unfinished() {
    return jdbc.sql("""
        select s.id, s.user_id, s.cluster_id, s.state, s.image_reference, coalesce(i.port, 8888), coalesce(i.path, '/'),
               c.session_domain, s.checkpoint_image, s.mode, s.gpu_model, u.team_id, s.volume_id,
               c.checkpoint_registry,
               (select extract(epoch from now() - w.opened_at)::bigint from billing_windows w
                 where w.session_id = s.id and w.closed_at is null)
          from sessions s join users u on u.id = s.user_id
          left join images i on i.id = s.image_id left join clusters c on c.id = s.cluster_id
         where s.state not in ('terminated', 'failed')
        """)
        .query((rs, n) -> new Unfinished(rs.getString(1), rs.getString(2), rs.getString(3),
            SessionState.fromWire(rs.getString(4)), rs.getString(5),
            rs.getInt(6), rs.getString(7), rs.getString(8), rs.getString(9), rs.getString(10), rs.getString(11),
            rs.getString(12), rs.getString(13), rs.getString(14), Duration.ofSeconds(Math.max(0, rs.getLong(15)))))
        .list();
  }

  /** Where the session's held GPUs are, as a placement; empty when it holds none (or their node is gone). */
  public Optional<GpuPlacement> heldPlacementOf(String sessionId, String clusterId, String mode,
      String model) {
    record Held(String uuid, String nodeId, String hostname, Integer mem, Integer cores, boolean lossless) {}
    List<Held> held = jdbc.sql("""
        select a.gpu_uuid, a.node_id, n.hostname, a.gpumem_mib, a.gpucores_percent, coalesce(n.lossless_pause, false)
          from allocations a left join nodes n on n.id = a.node_id
         where a.session_id = :s and a.released_at is null order by a.gpu_uuid
        """).param("s", sessionId)
        .query((rs, n) -> new Held(rs.getString(1), rs.getString(2), rs.getString(3), (Integer) rs.getObject(4),
            (Integer) rs.getObject(5), rs.getBoolean(6)))
        .list();
    if (held.isEmpty() || held.get(0).nodeId() == null) {
      return Optional.empty();
    }
    Held first = held.get(0);
    return Optional.of(new GpuPlacement(clusterId, first.nodeId(), first.hostname(), mode, model,
        held.stream().map(Held::uuid).toList(), first.mem(), first.cores(), first.lossless()));
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
  public BigDecimal costSoFar(String sessionId) {
    return jdbc.sql("select coalesce(-sum(amount), 0) from credit_ledger where session_id = :s")
        .param("s", sessionId).query(BigDecimal.class).single();
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
  public void record(SessionRecord r) {
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
               ended_at = case when :state in ('terminated', 'failed') then coalesce(ended_at, now()) else ended_at end,
               -- What the idle reaper learned holds for one run: a session leaving 'running' starts over.
               idle_since = case when :state = 'running' then idle_since end,
               idle_source = case when :state = 'running' then idle_source end,
               idle_warning = case when :state = 'running' then idle_warning end,
               idle_pause_at = case when :state = 'running' then idle_pause_at end
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

  /**
   * Where a page of the list ends: its last session's (created_at, id), the list's order, so a page
   * continues after it whatever was created or changed meanwhile. Opaque to callers.
   */
  public record Cursor(Instant createdAt, String id) {

    public String encode() {
      return Base64.getUrlEncoder().withoutPadding()
          .encodeToString((createdAt + "|" + id).getBytes(StandardCharsets.UTF_8));
    }

    /** The cursor {@link #encode} made; {@link IllegalArgumentException} for anything else. */
    public static Cursor decode(String text) {
      try {
        String plain = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8);
        int bar = plain.indexOf('|');
        return new Cursor(Instant.parse(plain.substring(0, bar)), plain.substring(bar + 1));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("not a cursor this list gave: " + text, e);
      }
    }
  }

  /** One page, newest first; {@code next} continues it, null on the last page. */
  public record Page(List<Session> items, Cursor next) {}

  public Page find(Filter filter, int limit, Cursor after) {
    StringBuilder sql = new StringBuilder("select * from sessions where true");
    Map<String, Object> params = new LinkedHashMap<>();
    add(sql, params, "user_id", filter.userId());
    add(sql, params, "cluster_id", filter.clusterId());
    add(sql, params, "node_id", filter.nodeId());
    add(sql, params, "state", filter.state());
    if (after != null) {
      sql.append(" and (created_at, id) < (:after_at, :after_id)");
      params.put("after_at", Timestamp.from(after.createdAt()));
      params.put("after_id", after.id());
    }
    // One row more than asked tells whether another page follows.
    sql.append(" order by created_at desc, id desc limit :limit");
    params.put("limit", limit + 1);
    List<Session> rows = jdbc.sql(sql.toString()).params(params).query(SessionRepository::map).list();
    if (rows.size() <= limit) {
      return new Page(rows, null);
    }
    List<Session> page = rows.subList(0, limit);
    Session last = page.get(limit - 1);
    return new Page(List.copyOf(page), new Cursor(last.createdAt(), last.id()));
  }

  private static void add(StringBuilder sql, Map<String, Object> params, String column, String value) {
    if (value != null) {
      sql.append(" and ").append(column).append(" = :").append(column);
      params.put(column, value);
    }
  }

  private static Session map(ResultSet rs, int row) throws SQLException {
    return new Session(rs.getString("id"), rs.getString("user_id"), rs.getString("name"),
        SessionState.fromWire(rs.getString("state")), rs.getString("state_reason"), rs.getString("cluster_id"), rs.getString("cluster_name"), rs.getString("node_id"),
        rs.getString("node_hostname"), rs.getString("gpu_model"), rs.getString("mode"), rs.getBigDecimal("price_per_hour"),
        rs.getString("image_reference"), rs.getString("volume_id"), PauseKind.fromWire(rs.getString("pause_kind")), rs.getString("url"),
        rs.getString("pod_phase"), instant(rs.getTimestamp("created_at")), instant(rs.getTimestamp("started_at")),
        instant(rs.getTimestamp("ended_at")), idle(rs));
  }

  private static Idle idle(ResultSet rs) throws SQLException {
    if (!"running".equals(rs.getString("state"))) {
      return null;
    }
    String source = rs.getString("idle_source");
    return new Idle(source == null ? "none" : source, instant(rs.getTimestamp("idle_since")),
        instant(rs.getTimestamp("last_activity_at")), rs.getString("idle_warning"), instant(rs.getTimestamp("idle_pause_at")));
  }

  private static Instant instant(Timestamp ts) {
    return ts == null ? null : ts.toInstant();
  }
}
