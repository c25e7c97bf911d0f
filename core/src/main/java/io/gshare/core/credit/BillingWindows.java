package io.gshare.core.credit;

import java.math.BigDecimal;
import java.math.RoundingMode;
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
 * {@code charge:<session>:<bucket start>}; one window is open at a time, so keys never collide) and moves
 * {@code charged_through}; closing settles the last partial minute (key per window). Every step is
 * idempotent, so a sweep and a close racing, or either retried, charge nothing twice.
 */
@Component
public final class BillingWindows {

  /** An open window. */
  public record Window(String id, String sessionId, String accountId, BigDecimal pricePerHour, Instant openedAt,
      Instant chargedThrough) {

    BigDecimal perMinute() {
      return pricePerHour.divide(BigDecimal.valueOf(60), 6, RoundingMode.HALF_UP);
    }
  }

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

  /** Up to {@code limit} open windows with whole minutes not yet charged, oldest first. */
  public List<Window> due(int limit) {
    return jdbc.sql("""
        select * from billing_windows
         where closed_at is null and charged_through <= :cutoff
         order by charged_through limit :limit
        """)
        .param("cutoff", Timestamp.from(clock.instant().minus(Duration.ofMinutes(1)))).param("limit", limit)
        .query((rs, n) -> window(rs)).list();
  }

  /** Charges every full minute of the window up to {@code until}; returns how many entries this call booked. */
  public int chargeThrough(Window window, Instant until) {
    Instant bucket = window.chargedThrough();
    int booked = 0;
    while (!bucket.plus(Duration.ofMinutes(1)).isAfter(until)) {
      if (ledger.charge(window.sessionId(), window.accountId(), bucket, window.perMinute()).created()) {
        booked++;
      }
      bucket = bucket.plus(Duration.ofMinutes(1));
    }
    if (bucket.isAfter(window.chargedThrough())) {
      jdbc.sql("update billing_windows set charged_through = greatest(charged_through, :t) where id = :id")
          .param("t", Timestamp.from(bucket)).param("id", window.id()).update();
    }
    return booked;
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
    Optional<Window> open = openWindowOf(sessionId);
    if (open.isEmpty()) {
      return;
    }
    Window window = open.get();
    Instant now = clock.instant();
    chargeThrough(window, now);
    Window charged = openWindowOf(sessionId).orElse(window);
    long seconds = Math.max(0, Duration.between(charged.chargedThrough(), now).toSeconds());
    BigDecimal partial = window.pricePerHour().multiply(BigDecimal.valueOf(seconds))
        .divide(BigDecimal.valueOf(3600), 6, RoundingMode.HALF_UP);
    ledger.settle(sessionId, window.accountId(), window.id(), partial);
    jdbc.sql("update billing_windows set closed_at = :now where id = :id and closed_at is null")
        .param("now", Timestamp.from(now)).param("id", window.id()).update();
  }

  private static Window window(java.sql.ResultSet rs) throws java.sql.SQLException {
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
