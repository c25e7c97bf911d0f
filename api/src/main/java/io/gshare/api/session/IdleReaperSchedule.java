package io.gshare.api.session;

import io.gshare.api.temporal.BootSchedules;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.session.IdleReaperWorkflow;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import io.temporal.client.schedules.SchedulePolicy;
import io.temporal.client.schedules.ScheduleSpec;
import java.util.List;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/** Creates the Temporal Schedule {@code idle-reaper} (every {@code gshare.idle.interval}) at boot; see {@link BootSchedules}. */
@Component
@ConditionalOnProperty(prefix = "gshare.idle", name = "enabled", havingValue = "true", matchIfMissing = true)
class IdleReaperSchedule extends BootSchedules {

  private final IdleReaperProperties properties;

  IdleReaperSchedule(ScheduleClient schedules, IdleReaperProperties properties) {
    super(schedules, properties.retryInterval());
    this.properties = properties;
  }

  @Override
  protected Map<String, Schedule> desired() {
    return Map.of(WorkflowIds.IDLE_REAPER, idleReaper(properties));
  }

  /** A sweep still running skips the next tick, and missed ticks are not replayed (each sweep decides for now). */
  static Schedule idleReaper(IdleReaperProperties properties) {
    return Schedule.newBuilder()
        .setAction(ScheduleActionStartWorkflow.newBuilder()
            .setWorkflowType(IdleReaperWorkflow.class)
            .setOptions(WorkflowOptions.newBuilder().setWorkflowId(WorkflowIds.IDLE_REAPER)
                .setTaskQueue(TaskQueues.CONTROL).setWorkflowExecutionTimeout(properties.interval().multipliedBy(5))
                .build())
            .build())
        .setSpec(ScheduleSpec.newBuilder().setIntervals(List.of(new ScheduleIntervalSpec(properties.interval()))).build())
        .setPolicy(SchedulePolicy.newBuilder().setOverlap(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP)
            .setCatchupWindow(properties.interval()).build())
        .build();
  }
}
