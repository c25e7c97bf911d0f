package io.gshare.workflows.session;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The idle reaper's decisions, from the sessions' GPU activity in Postgres. Runs on gshare-control. */
@ActivityInterface
public interface IdleReaperActivities {

  /**
   * Decides for every running session whether it is idle, writes what the session view shows (idle since,
   * source, last activity, warning), records an audit event for each session to pause, and returns them.
   * Idempotent: a retry decides the same and records nothing twice.
   */
  @ActivityMethod(name = "SweepIdleSessions")
  IdleSweep sweepIdleSessions();
}
