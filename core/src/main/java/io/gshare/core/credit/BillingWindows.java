package io.gshare.core.credit;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionOperations;

/**
 * Billing windows: opened when a session starts running, closed when it pauses or ends. Charging a
 * window books one ledger entry per full minute counted from the window's opening (key
 * {@code charge:<session>:<bucket start>}, as {@link CreditLedger#charge} names it; one window is open at
 * a time, so keys never collide) and moves {@code charged_through}; closing settles the last partial
 * minute (key per window). Every step is idempotent, so a sweep and a close racing, or either retried,
 * charge nothing twice; a close locks its window, and the sweep skips locked windows.
 */
@Component
public final class BillingWindows {

  /** An open window. */
  public record Window(String id, String sessionId, String accountId, BigDecimal pricePerHour, Instant openedAt,
      Instant chargedThrough) {}

  /**
   * One batch of a sweep: the windows it charged, the ledger entries it booked, and whether more may be
   * due (the batch was full, or a window had more minutes due than one batch charges).
   */
  public record Batch(int windows, int booked, boolean more) {}

  /** Minutes one batch charges a window at most, bounding a statement after an outage (the rest come next). */
  static final int MAX_MINUTES_PER_BATCH = 10;

  private final JdbcClient jdbc;
  private final CreditLedger ledger;
  private final Clock clock;
  private final TransactionOperations transactions;

  /** @param transactions closing runs in one: its partial minute depends on the time it is done */
  @Autowired
  BillingWindows(JdbcClient jdbc, CreditLedger ledger, TransactionOperations transactions) {
    this(jdbc, ledger, Clock.systemUTC(), transactions);
  }

  public BillingWindows(JdbcClient jdbc, CreditLedger ledger, Clock clock, TransactionOperations transactions) {
    this.jdbc = jdbc;
    this.ledger = ledger;
    this.clock = clock;
    this.transactions = transactions;
  }

  /** Opens a window from now at the session's price, unless one is open. */
  public void open(String sessionId) {
    Instant now = clock.instant();
    String userId = jdbc.sql("select user_id from sessions where id = :s").param("s", sessionId).query(String.class).single();
    jdbc.sql("""
        insert into billing_windows (id, session_id, account_id, price_per_hour, opened_at, charged_through)
        select :id, s.id, :account, s.price_per_hour, :now, :now from sessions s where s.id = :s
        on conflict do nothing
        """)
        .param("id", "bw-" + sessionId.replace('_', '-') + "-" + now.toEpochMilli()).param("s", sessionId)
        .param("account", ledger.accountOf(userId)).param("now", Timestamp.from(now)).update();
  }

  public Optional<Window> openWindowOf(String sessionId) {
    return jdbc.sql("select * from billing_windows where session_id = :s and closed_at is null").param("s", sessionId)
        .query((rs, n) -> window(rs)).optional();
  }

  /**
   * Charges the due minutes of up to {@code windows} open windows, oldest first, up to {@code until}: one
   * statement, so one transaction, whatever the batch's size. Each (session, minute) bucket is one entry
   * under {@link CreditLedger#charge}'s key (same text, amount and bucket), inserted with
   * {@code on conflict do nothing}, so a retried or doubled sweep books nothing twice; the ledger's trigger
   * books every entry into its account, in account order so that concurrent batches lock accounts alike.
   * Windows a close holds are skipped: the close charges them. A free minute (price 0) books nothing.
   */
  public Batch chargeDue(int windows, Instant until) {
    return chargeDue(null, windows, until);
  }

  private static final String CHARGE_DUE = """
      with due as (
        select id, session_id, account_id, round(price_per_hour / 60, 6) as per_minute, charged_through,
               least(floor(extract(epoch from cast(:until as timestamptz) - charged_through) / 60)::int, :max) as minutes
          from billing_windows
         where closed_at is null and charged_through <= cast(:until as timestamptz) - interval '1 minute'
           and (cast(:session as text) is null or session_id = :session)
         order by charged_through, id
         limit :windows
           for update skip locked),
      buckets as (
        select d.session_id, d.account_id, d.per_minute,
               date_trunc('milliseconds', d.charged_through + m * interval '1 minute') as bucket
          from due d cross join lateral generate_series(0, d.minutes - 1) m
         where d.per_minute > 0),
      named as (
        -- Instant.toString() of the bucket: seconds always, milliseconds only when not zero
        select b.*, to_char(b.bucket at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
                    || case when extract(microseconds from b.bucket at time zone 'UTC')::bigint % 1000000 = 0 then ''
                            else '.' || lpad((extract(microseconds from b.bucket at time zone 'UTC')::bigint % 1000000
                                              / 1000)::text, 3, '0')
                       end || 'Z' as minute
          from buckets b),
      booked as (
        insert into credit_ledger (account_id, amount, kind, idempotency_key, session_id, bucket_start, description)
        select account_id, -per_minute, 'charge', 'charge:' || session_id || ':' || minute, session_id, bucket,
               'session ' || session_id || ' minute ' || minute
          from named order by account_id, session_id, bucket
        on conflict (idempotency_key) do nothing
        returning 1),
      moved as (
        update billing_windows w set charged_through = w.charged_through + d.minutes * interval '1 minute'
          from due d where w.id = d.id
        returning 1)
      select (select count(*) from moved), (select count(*) from booked),
             (select count(*) from due where minutes = :max)
      """;

  private Batch chargeDue(String sessionId, int windows, Instant until) {
    return jdbc.sql(CHARGE_DUE)
        .param("until", Timestamp.from(until)).param("max", MAX_MINUTES_PER_BATCH).param("session", sessionId)
        .param("windows", windows)
        .query((rs, n) -> new Batch(rs.getInt(1), rs.getInt(2), rs.getInt(1) == windows || rs.getInt(3) > 0))
        .single();
  }

  /**
   * Charges the full minutes, settles the partial last one, closes the window; nothing happens when none
   * is open. One transaction: the partial minute is priced at the time of the call, and its key is one
   * per window, so a retry after a half-done close must find either nothing done or all of it.
   */
  public void close(String sessionId) {
    transactions.executeWithoutResult(tx -> closeNow(sessionId));
  }

  private void closeNow(String sessionId) {
    // Locked until the close commits: a sweep waits for nothing and skips it, so no minute is charged
    // after the window's partial one was settled.
    Optional<Window> open = jdbc.sql("select * from billing_windows where session_id = :s and closed_at is null for update")
        .param("s", sessionId).query((rs, n) -> window(rs)).optional();
    if (open.isEmpty()) {
      return;
    }
    Window window = open.get();
    Instant now = clock.instant();
    Batch batch;
    do {
      batch = chargeDue(sessionId, 1, now);
    } while (batch.windows() > 0 && batch.more());
    Window charged = openWindowOf(sessionId).orElse(window);
    long seconds = Math.max(0, Duration.between(charged.chargedThrough(), now).toSeconds());
    BigDecimal partial = window.pricePerHour().multiply(BigDecimal.valueOf(seconds))
        .divide(BigDecimal.valueOf(3600), 6, RoundingMode.HALF_UP);
    ledger.settle(sessionId, window.accountId(), window.id(), partial);
    jdbc.sql("update billing_windows set closed_at = :now where id = :id and closed_at is null")
        .param("now", Timestamp.from(now)).param("id", window.id()).update();
  }

  private static Window window(ResultSet rs) throws SQLException {
    return new Window(rs.getString("id"), rs.getString("session_id"), rs.getString("account_id"),
        rs.getBigDecimal("price_per_hour"), rs.getTimestamp("opened_at").toInstant(),
        rs.getTimestamp("charged_through").toInstant());
  }

  /** Sessions billing now whose balance cannot pay their next minute. */
  public List<String> sessionsUnableToPayNextMinute() {
    return jdbc.sql("""
        select w.session_id from billing_windows w join credit_accounts a on a.id = w.account_id
         where w.closed_at is null and a.balance < w.price_per_hour / 60 and w.price_per_hour > 0
        """).query(String.class).list();
  }
}
