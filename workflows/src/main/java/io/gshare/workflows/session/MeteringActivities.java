package io.gshare.workflows.session;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Billing windows and the ledger, for the metering sweep. Runs on gshare-control. */
@ActivityInterface
public interface MeteringActivities {

  /**
   * Charges every full minute of open windows not yet charged, one ledger entry per (session, minute)
   * under its key, so a retried or doubled sweep charges nothing twice.
   */
  @ActivityMethod(name = "ChargeOpenWindows")
  MeteringResult chargeOpenWindows(int batchSize);
}
