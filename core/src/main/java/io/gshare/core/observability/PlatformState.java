package io.gshare.core.observability;

import java.math.BigDecimal;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The counts gShare's own metrics publish, read from Postgres in a few grouped queries. */
@Repository
public class PlatformState {

  /** A count of something by two labels. */
  public record Count(String first, String second, long count) {}

  /** When the token a cluster's worker uses expires, in seconds from now (negative: already expired). */
  public record TokenExpiry(String clusterId, double secondsLeft) {}

  private final JdbcClient jdbc;

  PlatformState(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** Sessions not ended by (state, cluster name); ended ones are history, not state. */
  public List<Count> sessionsByStateAndCluster() {
    return jdbc.sql("""
        select state, coalesce(cluster_name, ''), count(*) from sessions
         where state not in ('terminated', 'failed') group by 1, 2
        """).query((rs, i) -> new Count(rs.getString(1), rs.getString(2), rs.getLong(3))).list();
  }

  /** Nodes of attached clusters by (liveness, cluster name), removed ones left out. */
  public List<Count> nodesByLivenessAndCluster() {
    return jdbc.sql("""
        select n.liveness, c.name, count(*) from nodes n join clusters c on c.id = n.cluster_id
         where n.removed_at is null and c.status <> 'detached' group by 1, 2
        """).query((rs, i) -> new Count(rs.getString(1), rs.getString(2), rs.getLong(3))).list();
  }

  public List<TokenExpiry> operatorTokenExpiry() {
    return jdbc.sql("""
        select t.cluster_id, extract(epoch from (coalesce(t.seen_expires_at, t.expires_at) - now()))
          from operator_tokens t join clusters c on c.id = t.cluster_id
         where c.status <> 'detached' and coalesce(t.seen_expires_at, t.expires_at) is not null
        """).query((rs, i) -> new TokenExpiry(rs.getString(1), rs.getDouble(2))).list();
  }

  /** Credits charged in ledger entries after {@code afterId}, and the last entry id read. */
  public record Charged(BigDecimal amount, long lastId) {}

  /**
   * Credits charged for GPU time (minutes and settlements) in the entries after {@code afterId}: read incrementally
   * along the primary key, so a refresh costs the new entries only, never the whole ledger.
   */
  public Charged creditsChargedAfter(long afterId) {
    return jdbc.sql("""
        select coalesce(-sum(amount) filter (where kind in ('charge', 'settlement') and amount < 0), 0),
               coalesce(max(id), :after)
          from credit_ledger where id > :after
        """).param("after", afterId).query((rs, i) -> new Charged(rs.getBigDecimal(1), rs.getLong(2))).single();
  }

  /** Alerts firing by alertname. */
  public List<Count> alertsFiring() {
    return jdbc.sql("select name, '', count(*) from alerts where status = 'firing' group by 1")
        .query((rs, i) -> new Count(rs.getString(1), rs.getString(2), rs.getLong(3))).list();
  }
}
