package io.gshare.core.node;

import java.time.Duration;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Nodes gone offline whose alert is not raised yet: once per outage, whichever api replica sweeps first. */
@Repository
public class OfflineNodes {

  public record Offline(String id, String clusterId, String hostname) {}

  private final JdbcClient jdbc;

  OfflineNodes(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * Marks the nodes of attached clusters not reported for {@code staleAfter} as alerted and returns them.
   * The guarded update hands each node to exactly one of several concurrent sweeps.
   */
  public List<Offline> markAlerted(Duration staleAfter) {
    return jdbc.sql("""
        update nodes n set offline_alerted_at = now()
          from clusters c
         where c.id = n.cluster_id and c.status <> 'detached'
           and n.removed_at is null and n.offline_alerted_at is null
           and c.inventory_at is not null and c.inventory_at < now() - make_interval(secs => :stale)
        returning n.id, n.cluster_id, n.hostname
        """)
        .param("stale", staleAfter.toSeconds())
        .query((rs, n) -> new Offline(rs.getString(1), rs.getString(2), rs.getString(3)))
        .list();
  }
}
