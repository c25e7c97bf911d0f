package io.gshare.core.alert;

import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Which firing alerts' conditions have ended, from the rows the condition is about. */
@Repository
public class EndedAlertConditions {

  private final JdbcClient jdbc;

  EndedAlertConditions(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** Of {@code objectIds} whose alert {@code name} fires, those whose condition is over. */
  public List<String> ended(AlertName name, List<String> objectIds) {
    String[] ids = objectIds.toArray(String[]::new);
    String sql = switch (name) {
      // Reported again (a report clears offline_alerted_at), removed from the cluster, or gone with its cluster.
      case NODE_OFFLINE -> """
          select n.id from nodes n join clusters c on c.id = n.cluster_id
           where n.id = any(:ids) and (n.offline_alerted_at is null or n.removed_at is not null or c.status = 'detached')
          union select x from unnest(cast(:ids as text[])) x where not exists (select 1 from nodes where id = x)
          """;
      // Its worker uses the newest token issued to it (a rotation went through), or the cluster is gone.
      case OPERATOR_TOKEN_EXPIRING -> """
          select c.id from clusters c left join operator_tokens t on t.cluster_id = c.id
           where c.id = any(:ids)
             and (c.status = 'detached' or (t.seen_jti is not distinct from t.jti and t.seen_expires_at > now()))
          """;
      // An admin uncordoned the card after the repair (or the card is gone).
      case GPU_XID_FATAL -> """
          select x from unnest(cast(:ids as text[])) x
           where not exists (select 1 from gpu_devices g where g.uuid = x and g.cordoned)
          """;
      // Reclaimed after all, or restored.
      case VOLUME_RECLAIM_STOPPED -> """
          select id from volumes where id = any(:ids) and status in ('reclaimed', 'available', 'in_use')
          """;
    };
    return jdbc.sql(sql).param("ids", ids).query(String.class).list();
  }
}
