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

  /** Writes the session's state and what goes with it (url, node, pause kind, checkpoint, reason). */
  @ActivityMethod(name = "RecordSessionState")
  void record(SessionRecord record);

  /**
   * The session runs: records it (url, node) and opens its billing window, in one activity so a start
   * costs one round trip through Temporal (each part idempotent, so a retry repeats nothing).
   */
  @ActivityMethod(name = "MarkSessionRunning")
  void markRunning(SessionRecord running);

  /**
   * The session stopped running (paused, terminated, failed): closes and settles its billing window,
   * releases its GPUs, then records the new state — in that order, so a row that says paused or
   * terminated never has an open window or held GPUs behind it.
   */
  @ActivityMethod(name = "SettleSession")
  void settle(SessionRecord stopped);
}
