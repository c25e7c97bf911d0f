package io.gshare.core.node;

import io.gshare.core.audit.AuditLog;
import io.gshare.core.error.GshareException;
import io.gshare.core.node.NodeQueries.GpuLocation;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Cordons a GPU card: placement skips it (and the allocations trigger refuses it), while the sessions
 * already on it keep running. Uncordon undoes it. Both are idempotent; inventory reports never write the
 * column, so a cordon lasts until uncordoned or until the card's row goes (its node deleted, or the card
 * gone from the node's report).
 */
@Service
public class GpuCordon {

  /** Where HAMi's node annotation for a cordoned card belongs: the node, by name, in its cluster. */
  public record HamiNode(String nodeId, String hostname, String clusterId) {}

  /**
   * The card after the change.
   *
   * @param changed false when it already was as asked
   */
  public record Cordoned(GpuLocation gpu, boolean changed) {

    /**
     * The seam for telling HAMi too: its scheduler knows nothing of gShare's column, so a later change
     * writes the node's annotation through the cluster's worker (its task queue is the cluster's), for
     * the cards of this node. Not written yet: gShare's placement alone keeps sessions off the card.
     */
    public HamiNode hamiNode() {
      return new HamiNode(gpu.nodeId(), gpu.hostname(), gpu.clusterId());
    }
  }

  private final JdbcClient jdbc;
  private final NodeQueries nodes;
  private final AuditLog audit;

  GpuCordon(JdbcClient jdbc, NodeQueries nodes, AuditLog audit) {
    this.jdbc = jdbc;
    this.nodes = nodes;
    this.audit = audit;
  }

  /** Sets or clears the card's cordon; 404 for an unknown uuid. Audits {@code gpu.cordoned}/{@code gpu.uncordoned} on a change. */
  @Transactional
  public Cordoned set(String uuid, boolean cordoned, String actor) {
    int changed = jdbc.sql("update gpu_devices set cordoned = :c where uuid = :u and cordoned <> :c")
        .param("u", uuid).param("c", cordoned).update();
    GpuLocation gpu = nodes.gpu(uuid).orElseThrow(() -> GshareException.notFound("GPU", uuid));
    if (changed > 0) {
      String action = cordoned ? "gpu.cordoned" : "gpu.uncordoned";
      audit.changed(actor, action, "gpu", uuid,
          "GPU " + gpu.index() + " (" + gpu.model() + ") of node " + gpu.hostname() + " in cluster " + gpu.clusterId()
              + (cordoned ? " cordoned" : " uncordoned"),
          Map.of("node_id", gpu.nodeId(), "hostname", gpu.hostname(), "cluster_id", gpu.clusterId()));
    }
    return new Cordoned(gpu, changed > 0);
  }
}
