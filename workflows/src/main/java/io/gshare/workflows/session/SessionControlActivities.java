package io.gshare.workflows.session;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** A session's control-plane state: placement, billing windows and its Postgres row. Runs on gshare-control. */
@ActivityInterface
public interface SessionControlActivities {

  /**
   * Re-admits and re-places a session (resume): the same offering and GPU model. Fails for good with
   * the problem code as its type (insufficient_capacity, insufficient_credits, quota_exceeded, ...).
   */
  @ActivityMethod(name = "PlaceSession")
  GpuPlacement place(String sessionId);

  /** Releases the session's GPUs (idempotent). */
  @ActivityMethod(name = "ReleaseSession")
  void release(String sessionId);

  /** Writes the session's state and what goes with it (url, node, pause kind, checkpoint, reason). */
  @ActivityMethod(name = "RecordSessionState")
  void record(SessionRecord record);

  /** Opens a billing window from now, unless one is open. */
  @ActivityMethod(name = "OpenBillingWindow")
  void openBilling(String sessionId);

  /** Charges the open window's full minutes, settles the partial last one and closes it (idempotent). */
  @ActivityMethod(name = "CloseBillingWindow")
  void closeBilling(String sessionId);
}
