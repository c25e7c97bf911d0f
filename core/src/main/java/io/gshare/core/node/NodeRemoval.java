package io.gshare.core.node;

import io.gshare.core.audit.AuditLog;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.support.AdvisoryLocks;
import io.gshare.workflows.session.SessionState;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Deletes a node an operator has taken out of its cluster (the guide's "노드 제거", step 4). Only an
 * offline node goes: one its cluster's worker still reports would be registered again by the next
 * inventory report. Only an idle one goes: no unreleased allocation and no session still on it. The node
 * and its GPU rows are deleted; the history stays, detached from them (sessions and allocations keep
 * {@code node_hostname} and {@code gpu_uuid}, their {@code node_id} is set null; billing windows and the
 * ledger name sessions only), and the node's pool stays, perhaps empty.
 *
 * <p>Race-free: before reading anything it waits for the cluster's inventory report in flight and for
 * the placements of its cards' models in flight, then locks the node row and checks. A report or a
 * placement starting meanwhile waits for the deletion and then no longer finds the node, so no
 * allocation can be left naming a deleted node and no report can bring its row back half-written.
 */
@Service
public class NodeRemoval {

  /** The node that was deleted. */
  public record Removed(String nodeId, String hostname, String clusterId) {}

  /**
   * States in which a session holds or may still take its node: not ended, and not paused (a paused
   * session has released its GPUs and closed its billing; a resume is placed anew, on any node).
   */
  static final String[] ON_NODE = Arrays.stream(SessionState.values())
      .filter(s -> !s.ended() && s != SessionState.PAUSED).map(SessionState::wireName).toArray(String[]::new);

  private static final int NAMED_IN_MESSAGE = 10;

  private final JdbcClient jdbc;
  private final Liveness liveness;
  private final AuditLog audit;

  NodeRemoval(JdbcClient jdbc, Liveness liveness, AuditLog audit) {
    this.jdbc = jdbc;
    this.liveness = liveness;
    this.audit = audit;
  }

  /**
   * Deletes the node, or refuses with nothing changed: 404 {@code not_found}, 409 {@code node_live} while its
   * cluster's worker still reports it, 409 {@code node_busy} naming the sessions still on it.
   */
  @Transactional
  public Removed delete(String nodeId, String actor) {
    String clusterId = jdbc.sql("select cluster_id from nodes where id = :id").param("id", nodeId)
        .query(String.class).optional().orElseThrow(() -> GshareException.notFound("node", nodeId));
    // Lock order: the cluster's inventory, the placements of the node's models (sorted), the node row.
    AdvisoryLocks.inventory(jdbc, clusterId);
    jdbc.sql("select distinct model from gpu_devices where node_id = :id order by model").param("id", nodeId)
        .query(String.class).list()
        .forEach(model -> AdvisoryLocks.placement(jdbc, model));
    // A fresh statement after the locks: it sees every report and placement that committed before them.
    record Locked(String hostname, String clusterId, NodeLiveness liveness) {}
    Locked node = jdbc.sql("""
        select n.hostname, n.cluster_id, %s as liveness
          from nodes n join clusters c on c.id = n.cluster_id
         where n.id = :id
           for update of n
        """.formatted(NodeQueries.EFFECTIVE_LIVENESS))
        .param("id", nodeId).param("stale", liveness.staleAfter().toSeconds())
        .query((rs, n) -> new Locked(rs.getString("hostname"), rs.getString("cluster_id"),
            NodeLiveness.fromWire(rs.getString("liveness"))))
        .optional().orElseThrow(() -> GshareException.notFound("node", nodeId));

    if (node.liveness() != NodeLiveness.OFFLINE) {
      throw new GshareException(ProblemCode.NODE_LIVE, "node " + node.hostname() + " is still reported by the worker of cluster "
          + node.clusterId() + " (" + node.liveness().wireName() + "), so the next inventory report would register it again: drain it and "
          + "remove it from the cluster first (kubectl drain " + node.hostname()
          + " --ignore-daemonsets --delete-emptydir-data; kubectl delete node " + node.hostname()
          + "), then delete it here once it shows offline", Map.of("liveness", node.liveness().wireName()));
    }

    List<String> sessions = jdbc.sql("""
        select a.session_id from allocations a
         where a.released_at is null
           and (a.node_id = :id or a.gpu_uuid in (select g.uuid from gpu_devices g where g.node_id = :id))
        union
        select s.id from sessions s where s.node_id = :id and s.state = any(:on_node)
        order by 1
        """).param("id", nodeId).param("on_node", ON_NODE).query(String.class).list();
    if (!sessions.isEmpty()) {
      throw new GshareException(ProblemCode.NODE_BUSY, "node " + node.hostname() + " still has " + sessions.size()
          + " session(s) holding GPUs or not ended: " + String.join(", ", sessions.subList(0, Math.min(NAMED_IN_MESSAGE,
          sessions.size()))) + (sessions.size() > NAMED_IN_MESSAGE ? ", ..." : "")
          + "; terminate or pause them (GET /api/v1/sessions?node_id=" + nodeId + "), then delete the node",
          Map.of("sessions", sessions));
    }

    jdbc.sql("delete from nodes where id = :id").param("id", nodeId).update();
    audit.changed(actor, "node.deleted", "node", nodeId,
        "node " + node.hostname() + " of cluster " + node.clusterId() + " deleted",
        Map.of("hostname", node.hostname(), "cluster_id", node.clusterId()));
    return new Removed(nodeId, node.hostname(), node.clusterId());
  }
}
