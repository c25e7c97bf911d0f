package io.gshare.activities.control;

import io.gshare.core.session.IdleSessions;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.session.IdleReaperActivities;
import io.gshare.workflows.session.IdleSweep;
import java.time.Clock;
import java.time.Duration;

/** One idle-reaper sweep, decided by {@link IdleSessions} (the rule's one home). */
@ActivitiesOn(taskQueue = TaskQueues.CONTROL)
public class IdleReaperActivitiesImpl implements IdleReaperActivities {

  private final IdleSessions sessions;
  private final Clock clock;
  private final Duration staleAfter;

  /**
   * @param staleAfter samples older than this (or a hole in them this long) are not a measurement: the
   *     session is not idle for the reaper until its worker reports again
   */
  public IdleReaperActivitiesImpl(IdleSessions sessions, Clock clock, Duration staleAfter) {
    this.sessions = sessions;
    this.clock = clock;
    this.staleAfter = staleAfter;
  }

  @Override
  public IdleSweep sweepIdleSessions() {
    IdleSessions.Sweep sweep = sessions.sweep(clock.instant(), staleAfter);
    return new IdleSweep(sweep.evaluated(), sweep.idle(), sweep.warned(),
        sweep.pauses().stream().map(p -> new IdleSweep.Pause(p.sessionId(), p.reason())).toList());
  }
}
