package io.gshare.core.alert;

import io.gshare.core.audit.AuditLog;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Admin alerts: raised once per outage (a second raise while one fires is a no-op), resolved when the condition
 * ends, and kept as an outbox that alert delivery (the Temporal Schedule {@code alert-delivery}) empties into the
 * webhook. Every raise also writes the audit event it always wrote.
 */
@Component
public class Alerts {

  private static final Logger log = LoggerFactory.getLogger(Alerts.class);

  /**
   * One alert.
   *
   * @param status firing or resolved
   * @param deliveredStatus the status the webhook last took; null when nothing was delivered yet (or no webhook)
   */
  public record Alert(long id, String name, String fingerprint, String severity, String objectKind, String objectId,
      String clusterId, String summary, String status, Instant startsAt, Instant endsAt, String deliveredStatus,
      int attempts, String lastError) {}

  private final JdbcClient jdbc;
  private final AuditLog audit;

  Alerts(JdbcClient jdbc, AuditLog audit) {
    this.jdbc = jdbc;
    this.audit = audit;
  }

  /**
   * Raises the alert for the object unless it already fires; answers whether it was raised now. Its audit event is
   * written when it is raised, so a condition reported again and again is one event per outage.
   */
  @Transactional
  public boolean raise(AlertName name, String objectId, String clusterId, String summary) {
    int raised = jdbc.sql("""
        insert into alerts (name, fingerprint, severity, object_kind, object_id, cluster_id, summary)
        values (:name, :fp, :severity, :kind, :id, :cluster, :summary)
        on conflict (fingerprint) where status = 'firing' do nothing
        """)
        .param("name", name.alertname()).param("fp", fingerprint(name, objectId))
        .param("severity", name.severity()).param("kind", name.objectKind()).param("id", objectId)
        .param("cluster", clusterId).param("summary", summary)
        .update();
    if (raised > 0) {
      audit.alert(name.auditAction(), name.objectKind(), objectId, summary);
      log.warn("alert {} firing for {} {}: {}", name.alertname(), name.objectKind(), objectId, summary);
    }
    return raised > 0;
  }

  /** Resolves the alert of the object if it fires; answers whether it did. */
  public boolean resolve(AlertName name, String objectId) {
    int resolved = jdbc.sql("""
        update alerts set status = 'resolved', ends_at = now(), attempts = 0, next_attempt_at = now(), last_error = null
         where fingerprint = :fp and status = 'firing'
        """).param("fp", fingerprint(name, objectId)).update();
    if (resolved > 0) {
      log.info("alert {} resolved for {} {}", name.alertname(), name.objectKind(), objectId);
    }
    return resolved > 0;
  }

  /** The objects whose alert of this name fires now. */
  public List<String> firingObjects(AlertName name) {
    return jdbc.sql("select object_id from alerts where name = :name and status = 'firing' order by id")
        .param("name", name.alertname()).query(String.class).list();
  }

  /**
   * Alerts whose current status the webhook has not taken and whose next attempt is due, locked for this caller
   * (another replica skips them). Call inside a transaction.
   */
  public List<Alert> claimUndelivered(int limit) {
    return jdbc.sql("""
        select * from alerts
         where delivered_status is distinct from status and next_attempt_at <= now()
         order by next_attempt_at, id limit :limit
         for update skip locked
        """).param("limit", limit).query(Alerts::map).list();
  }

  /** The webhook took the alert as it was ({@code status}); a status changed since stays to deliver. */
  public void delivered(long id, String status) {
    jdbc.sql("update alerts set delivered_status = :s, attempts = 0, last_error = null where id = :id")
        .param("id", id).param("s", status).update();
  }

  /** A delivery failed: try again after {@code retryIn}. */
  public void failed(long id, String error, Duration retryIn) {
    jdbc.sql("""
        update alerts set attempts = attempts + 1, last_error = :e, next_attempt_at = now() + make_interval(secs => :s)
         where id = :id
        """).param("id", id).param("e", error).param("s", retryIn.toMillis() / 1000.0).update();
  }

  /** Newest first; {@code status} firing or resolved, or null for both. */
  public List<Alert> list(String status, int limit) {
    return jdbc.sql("select * from alerts where (cast(:s as text) is null or status = :s) order by starts_at desc, id desc limit :l")
        .param("s", status).param("l", limit).query(Alerts::map).list();
  }

  /** The same alert across its outages: its name and object, hashed (as Alertmanager fingerprints label sets). */
  static String fingerprint(AlertName name, String objectId) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256")
          .digest((name.alertname() + "\u0000" + name.objectKind() + "\u0000" + objectId).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Alert map(ResultSet rs, int row) throws SQLException {
    Timestamp ends = rs.getTimestamp("ends_at");
    return new Alert(rs.getLong("id"), rs.getString("name"), rs.getString("fingerprint"), rs.getString("severity"),
        rs.getString("object_kind"), rs.getString("object_id"), rs.getString("cluster_id"), rs.getString("summary"),
        rs.getString("status"), rs.getTimestamp("starts_at").toInstant(), ends == null ? null : ends.toInstant(),
        rs.getString("delivered_status"), rs.getInt("attempts"), rs.getString("last_error"));
  }
}
