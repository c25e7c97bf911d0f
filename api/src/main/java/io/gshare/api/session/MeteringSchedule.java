package io.gshare.api.session;

import io.gshare.api.temporal.BootSchedules;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.session.MeteringWorkflow;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import io.temporal.client.schedules.SchedulePolicy;
import io.temporal.client.schedules.ScheduleSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * Creates the Temporal Schedule {@code metering-sweep} at boot, firing every minute; see {@link BootSchedules}: an
 * existing one (a dev server with a database file, or any production server, keeps it across restarts) is brought up
 * to date, and while Temporal is unreachable creating it is retried every {@code gshare.metering.retry-interval}.
 */
@Component
@ConditionalOnProperty(prefix = "gshare.metering", name = "enabled", havingValue = "true", matchIfMissing = true)
class MeteringSchedule extends BootSchedules {

  static final Duration EVERY = Duration.ofMinutes(1);

  MeteringSchedule(ScheduleClient schedules, MeteringProperties properties) {
    super(schedules, properties.retryInterval());
  }

  @Override
  protected Map<String, Schedule> desired() {
    return Map.of(MeteringWorkflow.ID, everyMinute());
  }

  /** Every minute; a sweep still running skips the next tick, and missed ticks are not replayed (each sweep charges up to now). */
  static Schedule everyMinute() {
    return Schedule.newBuilder()
        .setAction(ScheduleActionStartWorkflow.newBuilder()
            .setWorkflowType(MeteringWorkflow.class)
            .setOptions(WorkflowOptions.newBuilder().setWorkflowId(MeteringWorkflow.ID).setTaskQueue(TaskQueues.CONTROL)
                .setWorkflowExecutionTimeout(EVERY.multipliedBy(5)).build())
            .build())
        .setSpec(ScheduleSpec.newBuilder().setIntervals(List.of(new ScheduleIntervalSpec(EVERY))).build())
        .setPolicy(SchedulePolicy.newBuilder().setOverlap(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP)
            .setCatchupWindow(EVERY).build())
        .build();
  }
}
