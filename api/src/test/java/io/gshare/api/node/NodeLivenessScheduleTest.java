package io.gshare.api.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

/** The node liveness sweep is a Temporal Schedule, not a timer in each api; AlertsIT sees it raise NodeOffline. */
class NodeLivenessScheduleTest {

  private static Schedule created(Duration every) {
    ScheduleClient schedules = mock(ScheduleClient.class);
    ArgumentCaptor<Schedule> created = ArgumentCaptor.forClass(Schedule.class);
    when(schedules.createSchedule(eq(WorkflowIds.NODE_LIVENESS), created.capture(), any())).thenReturn(null);
    assertThat(new NodeLivenessSchedule(schedules, new NodeProperties(Duration.ofMinutes(5), every)).start()).isTrue();
    return created.getValue();
  }

  @Test
  void sweepsEverySweepIntervalOnTheControlQueueSkippingOverlapsAndMissedTicks() {
    Schedule schedule = created(Duration.ofSeconds(30));
    assertThat(schedule.getSpec().getIntervals()).containsExactly(new ScheduleIntervalSpec(Duration.ofSeconds(30)));
    assertThat(schedule.getPolicy().getOverlap()).isEqualTo(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP);
    assertThat(schedule.getPolicy().getCatchupWindow()).isEqualTo(Duration.ofSeconds(30));
    ScheduleActionStartWorkflow sweep = (ScheduleActionStartWorkflow) schedule.getAction();
    assertThat(sweep.getWorkflowType()).isEqualTo("NodeLiveness");
    assertThat(sweep.getOptions().getTaskQueue()).isEqualTo(TaskQueues.CONTROL);
    assertThat(sweep.getOptions().getWorkflowId()).isEqualTo(WorkflowIds.NODE_LIVENESS);
    assertThat(sweep.getOptions().getWorkflowExecutionTimeout()).isEqualTo(Duration.ofSeconds(150));
  }

  @Test
  void aShortIntervalStillGivesASweepAMinuteAndMissedTicksTenSeconds() {
    Schedule schedule = created(Duration.ofSeconds(2));
    assertThat(((ScheduleActionStartWorkflow) schedule.getAction()).getOptions().getWorkflowExecutionTimeout())
        .isEqualTo(Duration.ofMinutes(1));
    assertThat(schedule.getPolicy().getCatchupWindow()).isEqualTo(Duration.ofSeconds(10));
  }
}
