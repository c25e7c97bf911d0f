package io.gshare.api.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
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

/** The idle reaper is a Temporal Schedule; IdleReaperIT sees it on a real server. */
class IdleReaperScheduleTest {

  private static final IdleReaperProperties DEFAULTS = new IdleReaperProperties(true, Duration.ofMinutes(1),
      Duration.ofMinutes(2), Duration.ofSeconds(60), "", "");

  @Test
  void sweepsEveryMinuteOnTheControlQueueSkippingOverlapsAndMissedTicks() {
    ScheduleClient schedules = mock(ScheduleClient.class);
    ArgumentCaptor<Schedule> created = ArgumentCaptor.forClass(Schedule.class);
    when(schedules.createSchedule(eq(WorkflowIds.IDLE_REAPER), created.capture(), any())).thenReturn(null);

    assertThat(new IdleReaperSchedule(schedules, DEFAULTS).start()).isTrue();

    Schedule schedule = created.getValue();
    assertThat(schedule.getSpec().getIntervals()).containsExactly(new ScheduleIntervalSpec(Duration.ofMinutes(1)));
    assertThat(schedule.getPolicy().getOverlap()).isEqualTo(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP);
    assertThat(schedule.getPolicy().getCatchupWindow()).isEqualTo(Duration.ofMinutes(1));
    ScheduleActionStartWorkflow sweep = (ScheduleActionStartWorkflow) schedule.getAction();
    assertThat(sweep.getWorkflowType()).isEqualTo("IdleReaper");
    assertThat(sweep.getOptions().getTaskQueue()).isEqualTo(TaskQueues.CONTROL);
    assertThat(sweep.getOptions().getWorkflowId()).isEqualTo(WorkflowIds.IDLE_REAPER);
  }

  @Test
  void aServerNotReadyYetIsAskedAgain() {
    ScheduleClient schedules = mock(ScheduleClient.class);
    when(schedules.createSchedule(any(), any(), any()))
        .thenThrow(new StatusRuntimeException(Status.UNAVAILABLE))
        .thenReturn(null);
    IdleReaperSchedule reaper = new IdleReaperSchedule(schedules, DEFAULTS);

    assertThat(reaper.start()).isFalse();
    reaper.retryUntilScheduled();
    assertThat(reaper.scheduled()).isTrue();
  }
}
