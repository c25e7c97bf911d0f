package io.gshare.activities.control;

import io.gshare.core.credit.BillingWindows;
import io.gshare.workflows.session.MeteringActivities;
import io.gshare.workflows.session.MeteringResult;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;

/** One metering sweep: charge the due minutes of open windows in batches, and find the sessions out of credit. */
public class MeteringActivitiesImpl implements MeteringActivities {

  private final JdbcClient jdbc;
  private final BillingWindows billing;
  private final Clock clock;

  public MeteringActivitiesImpl(JdbcClient jdbc, BillingWindows billing, Clock clock) {
    this.jdbc = jdbc;
    this.billing = billing;
    this.clock = clock;
  }

  @Override
  public MeteringResult chargeOpenWindows(int batchSize) {
    int charged = 0;
    List<BillingWindows.Window> due;
    do {
      due = billing.due(batchSize);
      for (BillingWindows.Window window : due) {
        charged += billing.chargeThrough(window, clock.instant());
      }
    } while (due.size() == batchSize);
    // Sessions billing now whose balance cannot pay their next minute.
    List<String> exhausted = new ArrayList<>(jdbc.sql("""
        select w.session_id from billing_windows w join credit_accounts a on a.id = w.account_id
         where w.closed_at is null and a.balance < w.price_per_hour / 60 and w.price_per_hour > 0
        """).query(String.class).list());
    return new MeteringResult(charged, exhausted);
  }
}
