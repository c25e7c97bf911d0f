package io.gshare.core.audit;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Writes audit events. Denied access is recorded once per minute per (actor, action, object), with a
 * count, so a misbehaving client cannot flood the table while every denial is still accounted for.
 * Its reads are {@link AuditQueries}.
 */
@Component
public class AuditLog {

  public static final String ACCESS_DENIED = "access.denied";
  private static final Logger log = LoggerFactory.getLogger(AuditLog.class);

  private final JdbcClient jdbc;
  private final Clock clock;

  @Autowired
  AuditLog(JdbcClient jdbc) {
    this(jdbc, Clock.systemUTC());
  }

  /** For tests with a fixed clock; an instance made with {@code new} opens no transaction of its own. */
  public AuditLog(JdbcClient jdbc, Clock clock) {
    this.jdbc = jdbc;
    this.clock = clock;
  }

  /**
   * Records a denial. Runs in its own transaction: the denied request's own work is rolled back,
   * the record of the denial is not.
   */
  @Transactional(propagation = Propagation.REQUIRES_NEW)
  public void denied(String actor, String objectKind, String objectId, String reason) {
    Instant minute = clock.instant().truncatedTo(ChronoUnit.MINUTES);
    String dedupKey = String.join("|", ACCESS_DENIED, nullToDash(actor), nullToDash(objectKind), nullToDash(objectId),
        minute.toString());
    jdbc.sql("""
        insert into audit_events (occurred_at, last_at, actor, action, object_kind, object_id, outcome, reason, dedup_key)
        values (:at, :at, :actor, :action, :kind, :id, 'denied', :reason, :key)
        on conflict (dedup_key) do update
           set occurrences = audit_events.occurrences + 1, last_at = excluded.last_at, reason = excluded.reason
        """)
        .param("at", Timestamp.from(clock.instant()))
        .param("actor", actor).param("action", ACCESS_DENIED).param("kind", objectKind).param("id", objectId)
        .param("reason", reason).param("key", dedupKey)
        .update();
    log.info("access denied: {} on {} {}: {}", actor, objectKind, objectId, reason);
  }

  /** An event operators must see (e.g. node.offline); the system is the actor. */
  public void alert(String action, String objectKind, String objectId, String reason) {
    jdbc.sql("""
        insert into audit_events (actor, action, object_kind, object_id, outcome, reason)
        values ('system', :action, :kind, :id, 'failure', :reason)
        """)
        .param("action", action).param("kind", objectKind).param("id", objectId).param("reason", reason)
        .update();
  }

  /**
   * A change an admin made (e.g. {@code node.deleted}), with what it concerned as {@code details}. Written in
   * the caller's transaction, so the event commits with the change or not at all.
   */
  public void changed(String actor, String action, String objectKind, String objectId, String reason,
      Map<String, String> details) {
    String[] keys = new String[details.size()];
    String[] values = new String[details.size()];
    int i = 0;
    for (Map.Entry<String, String> detail : details.entrySet()) {
      keys[i] = detail.getKey();
      values[i++] = detail.getValue();
    }
    jdbc.sql("""
        insert into audit_events (actor, action, object_kind, object_id, outcome, reason, details)
        values (:actor, :action, :kind, :id, 'success', :reason, jsonb_object(:keys, :values))
        """)
        .param("actor", actor).param("action", action).param("kind", objectKind).param("id", objectId)
        .param("reason", reason)
        .param("keys", keys).param("values", values)
        .update();
  }

  /**
   * Something the system did on its own (e.g. {@code session.idle_paused}), recorded once under
   * {@code dedupKey}: a retried decision writes nothing more. In the caller's transaction.
   */
  public void systemEvent(String action, String objectKind, String objectId, String reason, String dedupKey,
      Map<String, String> details) {
    jdbc.sql("""
        insert into audit_events (actor, action, object_kind, object_id, outcome, reason, details, dedup_key)
        values ('system', :action, :kind, :id, 'success', :reason,
                jsonb_object(:keys::text[], :values::text[]), :key)
        on conflict (dedup_key) do nothing
        """)
        .param("action", action).param("kind", objectKind).param("id", objectId).param("reason", reason)
        .param("keys", details.keySet().toArray(String[]::new))
        .param("values", details.values().toArray(String[]::new))
        .param("key", dedupKey)
        .update();
  }

  private static String nullToDash(String s) {
    return s == null ? "-" : s;
  }
}
