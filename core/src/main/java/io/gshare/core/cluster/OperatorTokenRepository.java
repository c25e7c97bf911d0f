package io.gshare.core.cluster;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Per cluster, the operator token last written into its Secret ({@code jti}, issued-at, expiry) and the
 * one its worker last authenticated with on {@code /internal}. Never the token itself.
 */
@Repository
public class OperatorTokenRepository {

  /** What is known of a cluster's operator tokens; any field may be null. */
  public record Row(String clusterId, String jti, Instant issuedAt, Instant expiresAt, Instant rotatedAt,
      String seenJti, Instant seenExpiresAt, Instant seenAt) {}

  private final JdbcClient jdbc;

  OperatorTokenRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** Records a token written into the cluster's Secret. */
  public void issued(String clusterId, String jti, Instant issuedAt, Instant expiresAt) {
    jdbc.sql("""
        insert into operator_tokens (cluster_id, jti, issued_at, expires_at, rotated_at)
        values (:c, :jti, :iat, :exp, now())
        on conflict (cluster_id) do update set jti = excluded.jti, issued_at = excluded.issued_at,
               expires_at = excluded.expires_at, rotated_at = excluded.rotated_at
        """)
        .param("c", clusterId).param("jti", jti).param("iat", Timestamp.from(issuedAt))
        .param("exp", Timestamp.from(expiresAt)).update();
  }

  /**
   * Records the token a worker authenticated with. Writes only when it differs from the one recorded,
   * so the per-request caller can call it freely; true when it changed.
   */
  public boolean seen(String clusterId, String jti, Instant expiresAt) {
    return jdbc.sql("""
        insert into operator_tokens (cluster_id, seen_jti, seen_expires_at, seen_at)
        values (:c, :jti, :exp, now())
        on conflict (cluster_id) do update set seen_jti = excluded.seen_jti,
               seen_expires_at = excluded.seen_expires_at, seen_at = excluded.seen_at
         where operator_tokens.seen_jti is distinct from excluded.seen_jti
        """)
        .param("c", clusterId).param("jti", jti).param("exp", expiresAt == null ? null : Timestamp.from(expiresAt))
        .update() > 0;
  }

  public Optional<Row> find(String clusterId) {
    return jdbc.sql("""
        select cluster_id, jti, issued_at, expires_at, rotated_at, seen_jti, seen_expires_at, seen_at
          from operator_tokens where cluster_id = :c
        """).param("c", clusterId).query((rs, n) -> new Row(rs.getString(1), rs.getString(2), instant(rs.getTimestamp(3)),
            instant(rs.getTimestamp(4)), instant(rs.getTimestamp(5)), rs.getString(6), instant(rs.getTimestamp(7)),
            instant(rs.getTimestamp(8))))
        .optional();
  }

  /** Clusters whose worker should hold a live token: attached, with a kubeconfig to write its Secret through. */
  public List<String> rotatable() {
    return jdbc.sql("""
        select id from clusters
         where status in ('connected', 'degraded', 'unreachable') and kubeconfig_ciphertext is not null
         order by id
        """).query(String.class).list();
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }
}
