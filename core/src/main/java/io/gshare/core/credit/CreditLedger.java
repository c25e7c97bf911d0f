package io.gshare.core.credit;

import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The credits ledger: append-only entries, each under an idempotency key, so every write here is one
 * idempotent call. The account balance moves only through the ledger's trigger, in the same
 * transaction as the entry. Reusing a key for a different entry is a bug and is refused.
 */
@Component
public class CreditLedger {

  /** The outcome of a write: the entry's id, and whether this call booked it or found it booked. */
  public record Booked(long entryId, boolean created) {}

  private final JdbcClient jdbc;

  public CreditLedger(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** One entry as an account's statement shows it. */
  public record Entry(long id, BigDecimal amount, String kind, String sessionId, Instant bucketStart,
      String description, Instant createdAt) {}

  /** The account's latest entries, newest first. */
  public List<Entry> entries(String accountId, int limit) {
    return jdbc.sql("""
        select * from credit_ledger where account_id = :a order by created_at desc, id desc limit :limit
        """).param("a", accountId).param("limit", limit)
        .query((rs, n) -> new Entry(rs.getLong("id"), rs.getBigDecimal("amount"), rs.getString("kind"),
            rs.getString("session_id"), instantOf(rs.getTimestamp("bucket_start")), rs.getString("description"),
            instantOf(rs.getTimestamp("created_at"))))
        .list();
  }

  private static Instant instantOf(Timestamp ts) {
    return ts == null ? null : ts.toInstant();
  }

  /** The id of the user's account, whether or not it exists yet: derived from the user's, so racing creators agree. */
  public static String accountIdOf(String userId) {
    return "acc-" + userId;
  }

  /** The user's account, created on first use. */
  public String accountOf(String userId) {
    String id = accountIdOf(userId);
    jdbc.sql("insert into credit_accounts (id, user_id) values (:id, :user) on conflict do nothing")
        .param("id", id).param("user", userId).update();
    return id;
  }

  public BigDecimal balance(String accountId) {
    return jdbc.sql("select balance from credit_accounts where id = :id").param("id", accountId)
        .query(BigDecimal.class).optional().orElse(BigDecimal.ZERO);
  }

  /** An admin's grant. */
  public Booked grant(String userId, BigDecimal amount, String idempotencyKey, String description, String grantedBy) {
    if (amount.signum() <= 0) {
      throw new IllegalArgumentException("a grant must be positive");
    }
    return book(accountOf(userId), amount, "grant", "grant:" + idempotencyKey, null, null, description, grantedBy);
  }

  /** One minute of a session's use, from {@code bucketStart} (to the millisecond), which names the entry. */
  public Booked charge(String sessionId, String accountId, Instant bucketStart, BigDecimal amount) {
    Instant minute = bucketStart.truncatedTo(ChronoUnit.MILLIS);
    return book(accountId, amount.negate(), "charge", "charge:" + sessionId + ":" + minute, sessionId, minute,
        "session " + sessionId + " minute " + minute, null);
  }

  /** The last, partial minute of a billing window, charged when the window closes. */
  public Booked settle(String sessionId, String accountId, String windowId, BigDecimal amount) {
    if (amount.signum() == 0) {
      return new Booked(0, false);
    }
    return book(accountId, amount.negate(), "settlement", "settlement:" + sessionId + ":" + windowId, sessionId, null,
        "session " + sessionId + " settlement of window " + windowId, null);
  }

  /** Credits given back, e.g. for a session that failed to start. */
  public Booked refund(String sessionId, String accountId, BigDecimal amount, String reason, String idempotencyKey) {
    if (amount.signum() <= 0) {
      throw new IllegalArgumentException("a refund must be positive");
    }
    return book(accountId, amount, "refund", "refund:" + idempotencyKey, sessionId, null, reason, null);
  }

  private Booked book(String accountId, BigDecimal amount, String kind, String key, String sessionId, Instant bucket,
      String description, String createdBy) {
    Optional<Long> created = jdbc.sql("""
        insert into credit_ledger (account_id, amount, kind, idempotency_key, session_id, bucket_start, description, created_by)
        values (:account, :amount, :kind, :key, :session, :bucket, :description, :by)
        on conflict (idempotency_key) do nothing
        returning id
        """)
        .param("account", accountId).param("amount", amount).param("kind", kind).param("key", key)
        .param("session", sessionId).param("bucket", bucket == null ? null : Timestamp.from(bucket))
        .param("description", description).param("by", createdBy)
        .query(Long.class).optional();
    if (created.isPresent()) {
      return new Booked(created.get(), true);
    }
    record Existing(long id, String account, BigDecimal amount, String kind) {}
    Existing existing = jdbc.sql("select id, account_id, amount, kind from credit_ledger where idempotency_key = :key")
        .param("key", key)
        .query((rs, n) -> new Existing(rs.getLong(1), rs.getString(2), rs.getBigDecimal(3), rs.getString(4)))
        .single();
    if (!existing.account().equals(accountId) || existing.amount().compareTo(amount) != 0 || !existing.kind().equals(kind)) {
      throw new IllegalStateException("idempotency key " + key + " was already used for a different entry");
    }
    return new Booked(existing.id(), false);
  }
}
