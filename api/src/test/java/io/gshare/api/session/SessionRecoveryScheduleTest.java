package io.gshare.api.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleHandle;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

/**
 * Session recovery is a Temporal Schedule, not a timer in each api, run once as soon as an api has ensured it;
 * SessionLifecycleIT sees a pass restart a lost session's workflow.
 */
class SessionRecoveryScheduleTest {

  private final ScheduleClient schedules = mock(ScheduleClient.class);
  private final ScheduleHandle handle = mock(ScheduleHandle.class);
  private final ArgumentCaptor<Schedule> created = ArgumentCaptor.forClass(Schedule.class);

  private SessionRecoverySchedule recovery(Duration every) {
    when(schedules.createSchedule(eq(WorkflowIds.SESSION_RECOVERY), created.capture(), any())).thenReturn(null);
    when(schedules.getHandle(WorkflowIds.SESSION_RECOVERY)).thenReturn(handle);
    return new SessionRecoverySchedule(schedules, new SessionProperties("", "", every, "", "https", 0));
  }

  @Test
  void recoversEveryRetryIntervalOnTheControlQueueSkippingOverlapsAndMissedTicks() {
    assertThat(recovery(Duration.ofSeconds(60)).start()).isTrue();

    Schedule schedule = created.getValue();
    assertThat(schedule.getSpec().getIntervals()).containsExactly(new ScheduleIntervalSpec(Duration.ofSeconds(60)));
    assertThat(schedule.getPolicy().getOverlap()).isEqualTo(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP);
    assertThat(schedule.getPolicy().getCatchupWindow()).isEqualTo(Duration.ofSeconds(60));
    ScheduleActionStartWorkflow pass = (ScheduleActionStartWorkflow) schedule.getAction();
    assertThat(pass.getWorkflowType()).isEqualTo("SessionRecovery");
    assertThat(pass.getOptions().getTaskQueue()).isEqualTo(TaskQueues.CONTROL);
    assertThat(pass.getOptions().getWorkflowId()).isEqualTo(WorkflowIds.SESSION_RECOVERY);
    assertThat(pass.getOptions().getWorkflowExecutionTimeout()).isEqualTo(Duration.ofMinutes(15));
  }

  @Test
  void anIntervalBelowASecondRunsEverySecondTheShortestAScheduleTakes() {
    assertThat(recovery(Duration.ofMillis(1)).start()).isTrue();

    assertThat(created.getValue().getSpec().getIntervals())
        .containsExactly(new ScheduleIntervalSpec(Duration.ofSeconds(1)));
    assertThat(created.getValue().getPolicy().getCatchupWindow()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void onceEnsuredItRunsOnceAtBootUnlessARunIsUnderWay() {
    SessionRecoverySchedule recovery = recovery(Duration.ofSeconds(60));

    assertThat(recovery.start()).isTrue();
    recovery.retryUntilScheduled();

    verify(handle, times(1)).trigger(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP);
  }

  @Test
  void aTriggerTemporalRefusedIsTriedAgainWithTheSchedule() {
    SessionRecoverySchedule recovery = recovery(Duration.ofSeconds(60));
    doThrow(new StatusRuntimeException(Status.UNAVAILABLE)).doNothing()
        .when(handle).trigger(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP);

    assertThat(recovery.start()).isFalse();
    assertThat(recovery.scheduled()).isFalse();
    recovery.retryUntilScheduled();
    assertThat(recovery.scheduled()).isTrue();
    recovery.retryUntilScheduled();

    verify(handle, times(2)).trigger(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP);
  }
}
