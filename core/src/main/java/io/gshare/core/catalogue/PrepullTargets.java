package io.gshare.core.catalogue;

import io.gshare.core.node.GpuMode;
import io.gshare.core.node.NodeLiveness;
import io.gshare.workflows.cluster.ClusterStatus;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The clusters and nodes an image pre-pull may be sent to. */
@Repository
public class PrepullTargets {

  /** A node still in its cluster's inventory, with its cluster's status. */
  public record Node(String nodeId, String clusterId, String hostname, NodeLiveness liveness, GpuMode gpuMode,
      ClusterStatus clusterStatus) {}

  public record Cluster(String clusterId, ClusterStatus status) {}

  private static final String NODE_COLUMNS = """
      select n.id, n.cluster_id, n.hostname, n.liveness, n.gpu_mode, c.status as cluster_status
        from nodes n join clusters c on c.id = n.cluster_id
      """;

  private final JdbcClient jdbc;

  PrepullTargets(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public List<Cluster> clusters(Collection<String> ids) {
    return jdbc.sql("select id, status from clusters where id = any(:ids) order by id")
        .param("ids", ids.toArray(String[]::new))
        .query((rs, n) -> new Cluster(rs.getString("id"), ClusterStatus.fromWire(rs.getString("status")))).list();
  }

  /** The named nodes that are still in their cluster's inventory. */
  public List<Node> nodes(Collection<String> ids) {
    return jdbc.sql(NODE_COLUMNS + " where n.id = any(:ids) and n.removed_at is null order by n.cluster_id, n.hostname")
        .param("ids", ids.toArray(String[]::new)).query(PrepullTargets::map).list();
  }

  /**
   * Every ready GPU node (exclusive or fractional) of every connected cluster, or of the given clusters
   * only; by cluster, then hostname.
   */
  public List<Node> readyGpuNodes(Collection<String> clusterIds) {
    return jdbc.sql(NODE_COLUMNS + """
         where n.removed_at is null and n.liveness = 'ready' and n.gpu_mode in ('exclusive', 'fractional')
           and c.status = 'connected' and (cast(:all as boolean) or n.cluster_id = any(:clusters))
         order by n.cluster_id, n.hostname
        """)
        .param("all", clusterIds == null)
        .param("clusters", clusterIds == null ? new String[0] : clusterIds.toArray(String[]::new))
        .query(PrepullTargets::map).list();
  }

  private static Node map(ResultSet rs, int row) throws SQLException {
    return new Node(rs.getString("id"), rs.getString("cluster_id"), rs.getString("hostname"),
        NodeLiveness.fromWire(rs.getString("liveness")), GpuMode.fromWire(rs.getString("gpu_mode")),
        ClusterStatus.fromWire(rs.getString("cluster_status")));
  }
}
