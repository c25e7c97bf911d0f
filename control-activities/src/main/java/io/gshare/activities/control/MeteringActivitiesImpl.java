package io.gshare.activities.control;

import io.gshare.core.credit.BillingWindows;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.session.MeteringActivities;
import io.gshare.workflows.session.MeteringResult;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * One metering sweep: charge the due minutes of open windows, {@code batchSize} windows per statement (one
 * transaction each), and find the sessions out of credit.
 */
@ActivitiesOn(taskQueue = TaskQueues.CONTROL)
public class MeteringActivitiesImpl implements MeteringActivities {

  private final BillingWindows billing;
  private final Clock clock;

  public MeteringActivitiesImpl(BillingWindows billing, Clock clock) {
    this.billing = billing;
    this.clock = clock;
  }

  @Override
  public MeteringResult chargeOpenWindows(int batchSize) {
    int charged = 0;
    BillingWindows.Batch batch;
    do {
      batch = billing.chargeDue(batchSize, clock.instant());
      charged += batch.booked();
    } while (batch.more() && batch.windows() > 0);
    // Sessions billing now whose balance cannot pay their next minute.
    List<String> exhausted = new ArrayList<>(billing.sessionsUnableToPayNextMinute());
    return new MeteringResult(charged, exhausted);
  }
}
