package io.gshare.api.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.activities.control.MeteringActivitiesImpl;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.NewTestIds;
import io.gshare.core.credit.BillingWindows;
import io.gshare.core.credit.CreditLedger;
import io.gshare.workflows.session.MeteringResult;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The metering sweep's batched path: many open windows charged in a few statements (one transaction
 * each), exactly once per (session, minute) under the keys {@link CreditLedger#charge} uses, balances kept
 * by the ledger's trigger, sessions out of credit reported. The sweeps here run on a clock a few minutes
 * ahead of windows opened now, so the Schedule's own sweep (on the real clock) leaves them alone.
 */
class MeteringSweepIT extends ApiIntegrationTest {

  static final int WINDOWS = 300;
  static final int BATCH = 100;
  static final BigDecimal PRICE = new BigDecimal("1.5"); // 0.025 a minute

  @Autowired DataSource dataSource;
  @Autowired CreditLedger ledger;
  @Autowired TransactionTemplate transactions;

  @Test
  void manyWindowsAreChargedOncePerMinuteInAFewTransactions() throws Exception {
    String rich = newUser("user");
    String poor = newUser("user");
    ledger.grant(rich, new BigDecimal("1000"), NewTestIds.next("grant"), "test", null);
    ledger.grant(poor, new BigDecimal("0.01"), NewTestIds.next("grant"), "test", null);
    // Windows opened now, on whole seconds and at odd milliseconds and microseconds (keys name both forms).
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    List<String> sessions = new ArrayList<>();
    List<Instant> opened = new ArrayList<>();
    for (int i = 0; i < WINDOWS; i++) {
      String user = i < 2 ? poor : rich;
      Instant at = now.plus(i % 3 == 0 ? 0 : i * 1_337L, ChronoUnit.MICROS);
      sessions.add(runningSession(user, at, PRICE));
      opened.add(at);
    }
    String free = runningSession(rich, now, BigDecimal.ZERO);
    int others = jdbc.sql("select count(*) from billing_windows where closed_at is null").query(Integer.class).single()
        - WINDOWS;

    AtomicInteger statements = new AtomicInteger();
    MutableClock clock = new MutableClock(now.plus(Duration.ofMinutes(3)).plusSeconds(1));
    BillingWindows billing = new BillingWindows(JdbcClient.create(counting(dataSource, statements)), ledger, clock, transactions);
    MeteringActivitiesImpl metering = new MeteringActivitiesImpl(billing, clock);

    MeteringResult first = metering.chargeOpenWindows(BATCH);
    // Full batches, the empty one that ends the loop, and the out-of-credit query: each one transaction.
    assertThat(statements.get()).isLessThanOrEqualTo((WINDOWS + others) / BATCH + 2);
    assertThat(first.charged()).isGreaterThanOrEqualTo(3 * WINDOWS);
    assertThat(chargesOf(sessions)).isEqualTo(3 * WINDOWS);
    assertThat(first.exhausted()).contains(sessions.get(0), sessions.get(1)).doesNotContain(sessions.get(2));
    // The same keys, amounts and buckets as a charge booked one by one: found, not booked again.
    for (int i : new int[] {0, 1, 2}) {
      for (int minute = 0; minute < 3; minute++) {
        Instant bucket = opened.get(i).plus(Duration.ofMinutes(minute));
        assertThat(ledger.charge(sessions.get(i), CreditLedger.accountIdOf(i < 2 ? poor : rich), bucket,
            new BigDecimal("0.025")).created()).isFalse();
        assertThat(jdbc.sql("select count(*) from credit_ledger where session_id = :s and bucket_start = :b")
            .param("s", sessions.get(i)).param("b", Timestamp.from(bucket.truncatedTo(ChronoUnit.MILLIS)))
            .query(Integer.class).single()).isEqualTo(1);
      }
    }

    // Again at the same time: nothing more. Two sweeps at once two minutes later: each minute once.
    statements.set(0);
    assertThat(metering.chargeOpenWindows(BATCH).charged()).isZero();
    assertThat(statements.get()).isEqualTo(2);
    clock.set(now.plus(Duration.ofMinutes(5)).plusSeconds(1));
    CompletableFuture<MeteringResult> a = CompletableFuture.supplyAsync(() -> metering.chargeOpenWindows(BATCH));
    CompletableFuture<MeteringResult> b = CompletableFuture.supplyAsync(() -> metering.chargeOpenWindows(BATCH));
    a.get();
    b.get();
    assertThat(chargesOf(sessions)).isEqualTo(5 * WINDOWS);
    assertThat(jdbc.sql("""
        select count(*) from (select session_id, bucket_start from credit_ledger where kind = 'charge' and session_id = any(:s)
                               group by 1, 2 having count(*) > 1) d
        """).param("s", sessions.toArray(String[]::new)).query(Integer.class).single()).isZero();
    assertThat(jdbc.sql("""
        select count(*) from billing_windows where session_id = any(:s) and charged_through <> opened_at + interval '5 minutes'
        """).param("s", sessions.toArray(String[]::new)).query(Integer.class).single()).isZero();

    // A free session's minutes pass without entries (the ledger refuses an entry of 0).
    assertThat(jdbc.sql("select count(*) from credit_ledger where session_id = :s").param("s", free).query(Integer.class).single())
        .isZero();
    assertThat(jdbc.sql("select charged_through = opened_at + interval '5 minutes' from billing_windows where session_id = :s")
        .param("s", free).query(Boolean.class).single()).isTrue();

    // Zero drift: each session's charges are its minutes times the price per minute; balances follow the ledger.
    assertThat(jdbc.sql("select -sum(amount) from credit_ledger where kind = 'charge' and session_id = any(:s)")
        .param("s", sessions.toArray(String[]::new)).query(BigDecimal.class).single())
        .isEqualByComparingTo(new BigDecimal("0.025").multiply(BigDecimal.valueOf(5L * WINDOWS)));
    assertThat(ledger.balance(CreditLedger.accountIdOf(rich)))
        .isEqualByComparingTo(new BigDecimal("1000").subtract(new BigDecimal("0.125").multiply(BigDecimal.valueOf(WINDOWS - 2))));
    assertThat(ledger.balance(CreditLedger.accountIdOf(poor))).isEqualByComparingTo(new BigDecimal("0.01").subtract(new BigDecimal("0.25")));

    // A close half a minute later charges no full minute again and settles the half.
    clock.set(now.plus(Duration.ofMinutes(5)).plusSeconds(30));
    String closing = sessions.get(3);
    billing.close(closing);
    assertThat(jdbc.sql("select count(*) from credit_ledger where session_id = :s and kind = 'charge'").param("s", closing)
        .query(Integer.class).single()).isEqualTo(5);
    assertThat(jdbc.sql("select -amount from credit_ledger where session_id = :s and kind = 'settlement'").param("s", closing)
        .query(BigDecimal.class).single()).isEqualByComparingTo(partial(opened.get(3), clock.instant()));

    // Leave nothing open for the Schedule's sweep to charge later.
    for (String session : sessions) {
      billing.close(session);
    }
    billing.close(free);
  }

  /** The settlement of the seconds after the window's last full minute (five minutes from its opening). */
  private static BigDecimal partial(Instant opened, Instant closedAt) {
    long seconds = Duration.between(opened.plus(Duration.ofMinutes(5)), closedAt).toSeconds();
    return PRICE.multiply(BigDecimal.valueOf(seconds)).divide(BigDecimal.valueOf(3600), 6, RoundingMode.HALF_UP);
  }

  private String runningSession(String user, Instant openedAt, BigDecimal price) {
    String id = NewTestIds.next("ses");
    jdbc.sql("""
        insert into sessions (id, user_id, state, gpu_model, mode, price_per_hour, image_reference, workflow_id)
        values (:id, :u, 'running', 'NVIDIA A100-SXM4-40GB', 'fractional', :price, 'img', :w)
        """).param("id", id).param("u", user).param("price", price).param("w", "session-" + id).update();
    jdbc.sql("""
        insert into billing_windows (id, session_id, account_id, price_per_hour, opened_at, charged_through)
        values (:id, :s, :a, :price, :at, :at)
        """).param("id", "bw-" + id.replace('_', '-')).param("s", id).param("a", ledger.accountOf(user))
        .param("price", price).param("at", Timestamp.from(openedAt)).update();
    return id;
  }

  private int chargesOf(List<String> sessions) {
    return jdbc.sql("select count(*) from credit_ledger where kind = 'charge' and session_id = any(:s)")
        .param("s", sessions.toArray(String[]::new)).query(Integer.class).single();
  }

  /** Outside a transaction every statement takes a connection and commits alone: connections = transactions. */
  private static DataSource counting(DataSource target, AtomicInteger count) {
    return new DelegatingDataSource(target) {
      @Override
      public Connection getConnection() throws SQLException {
        count.incrementAndGet();
        return super.getConnection();
      }
    };
  }

  static final class MutableClock extends Clock {
    private volatile Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    void set(Instant now) {
      this.now = now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
