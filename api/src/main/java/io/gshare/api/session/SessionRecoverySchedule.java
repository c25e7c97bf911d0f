package io.gshare.api.session;

import io.gshare.api.temporal.BootSchedules;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.session.SessionRecoveryWorkflow;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleClient;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.springframework.stereotype.Component;

/**
 * Creates the Temporal Schedule {@code session-recovery} (every {@code gshare.sessions.recovery-retry-interval}) at
 * boot and triggers it once as soon as it exists, so a Temporal server that forgot its workflows (the dev server
 * restarted) has its sessions' workflows back within seconds of the api's start; see {@link BootSchedules}. One pass
 * at a time for the whole control plane, however many api replicas start.
 */
@Component
class SessionRecoverySchedule extends BootSchedules {

  /** How often creating (and triggering) the Schedule is tried again while Temporal is not ready. */
  static final Duration RETRY = Duration.ofSeconds(30);
  /** A pass describes each unfinished session's workflow: one that has not ended by then is given up. */
  static final Duration MIN_TIMEOUT = Duration.ofMinutes(15);

  private final SessionProperties properties;

  SessionRecoverySchedule(ScheduleClient schedules, SessionProperties properties) {
    super(schedules, RETRY);
    this.properties = properties;
  }

  @Override
  protected Map<String, Schedule> desired() {
    return Map.of(WorkflowIds.SESSION_RECOVERY, sessionRecovery(properties));
  }

  @Override
  protected Set<String> runOnceAtBoot() {
    return Set.of(WorkflowIds.SESSION_RECOVERY);
  }

  /** A pass still running skips the next tick, and missed ticks are not replayed (each pass looks at now). */
  static Schedule sessionRecovery(SessionProperties properties) {
    return sweep(SessionRecoveryWorkflow.class, WorkflowIds.SESSION_RECOVERY, properties.recoveryRetryInterval(), MIN_TIMEOUT);
  }
}
