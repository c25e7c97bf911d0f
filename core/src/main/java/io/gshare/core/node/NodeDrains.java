package io.gshare.core.node;

import io.gshare.workflows.session.SessionState;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * A node's drain in Postgres: the mark placement reads ({@code nodes.drain_state}), the sessions still
 * on the node, and its cordoned GPUs. Inventory reports never touch the mark.
 */
@Repository
public class NodeDrains {

  /** A node as a drain addresses it. */
  public record Target(String nodeId, String clusterId, String hostname, NodeLiveness liveness, String drainState) {}

  private static final String[] LIVE_STATES = SessionState.LIVE.stream().map(SessionState::wireName).toArray(String[]::new);

  private final JdbcClient jdbc;

  NodeDrains(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** The node, unless it is gone from its cluster's inventory. */
  public Optional<Target> target(String nodeId) {
    return jdbc.sql("""
        select id, cluster_id, hostname, liveness, drain_state from nodes where id = :id and removed_at is null
        """).param("id", nodeId)
        .query((rs, n) -> new Target(rs.getString("id"), rs.getString("cluster_id"), rs.getString("hostname"),
            NodeLiveness.fromWire(rs.getString("liveness")), rs.getString("drain_state")))
        .optional();
  }

  /** Idempotent; a drained node drained again goes back to draining until this drain ends. */
  public void markDraining(String nodeId, String reason) {
    jdbc.sql("""
        update nodes set drain_state = 'draining', drain_reason = :reason,
               drain_started_at = case when drain_state = 'draining' then drain_started_at else now() end
         where id = :id
        """).param("id", nodeId).param("reason", reason).update();
  }

  public void markDrained(String nodeId) {
    jdbc.sql("update nodes set drain_state = 'drained' where id = :id and drain_state is not null").param("id", nodeId)
        .update();
  }

  public void clear(String nodeId) {
    jdbc.sql("update nodes set drain_state = null, drain_reason = null, drain_started_at = null where id = :id")
        .param("id", nodeId).update();
  }

  /** Unended sessions placed on the node, and any session still holding one of its GPUs, oldest first. */
  public List<String> sessionsOn(String nodeId) {
    return jdbc.sql("""
        select s.id from sessions s
         where (s.node_id = :node and s.state = any(:live))
            or exists (select 1 from allocations a where a.session_id = s.id and a.node_id = :node and a.released_at is null)
         order by s.created_at, s.id
        """).param("node", nodeId).param("live", LIVE_STATES).query(String.class).list();
  }

  /** The node's GPUs an admin took out of service, in device order. */
  public List<String> cordonedDevices(String nodeId) {
    return jdbc.sql("select uuid from gpu_devices where node_id = :node and cordoned order by device_index")
        .param("node", nodeId).query(String.class).list();
  }
}
