package io.gshare.api.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.gshare.workflows.cluster.TokenRotationRequest;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleAlreadyRunningException;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleHandle;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

/** Both rotations are Temporal Schedules; TokenRotationIT sees them on a real server. */
class TokenRotationSchedulesTest {

  private static final TokenRotationProperties DEFAULTS = new TokenRotationProperties(true, Duration.ofHours(24),
      Duration.ofDays(30), Duration.ofMinutes(3), Duration.ofSeconds(10), Duration.ofDays(2), Duration.ofSeconds(60));

  @Test
  void tokensRotateDailyAndTheSigningKeyMonthlyOnTheControlQueueSkippingOverlaps() {
    ScheduleClient schedules = mock(ScheduleClient.class);
    ArgumentCaptor<Schedule> tokens = ArgumentCaptor.forClass(Schedule.class);
    ArgumentCaptor<Schedule> keys = ArgumentCaptor.forClass(Schedule.class);
    when(schedules.createSchedule(eq(WorkflowIds.TOKEN_ROTATION), tokens.capture(), any())).thenReturn(null);
    when(schedules.createSchedule(eq(WorkflowIds.SIGNING_KEY_ROTATION), keys.capture(), any())).thenReturn(null);

    assertThat(new TokenRotationSchedules(schedules, DEFAULTS).start()).isTrue();

    assertThat(tokens.getValue().getSpec().getIntervals()).containsExactly(new ScheduleIntervalSpec(Duration.ofHours(24)));
    assertThat(tokens.getValue().getPolicy().getOverlap()).isEqualTo(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP);
    ScheduleActionStartWorkflow rotate = (ScheduleActionStartWorkflow) tokens.getValue().getAction();
    assertThat(rotate.getWorkflowType()).isEqualTo("TokenRotation");
    assertThat(rotate.getOptions().getTaskQueue()).isEqualTo(TaskQueues.CONTROL);
    assertThat(rotate.getOptions().getWorkflowId()).isEqualTo(WorkflowIds.TOKEN_ROTATION);
    // Every attached cluster, with the configured waits: the workflow reads no configuration itself.
    assertThat(rotate.getArguments().get(0, TokenRotationRequest.class, TokenRotationRequest.class))
        .isEqualTo(new TokenRotationRequest(null, Duration.ofMinutes(3), Duration.ofSeconds(10), Duration.ofDays(2)));

    assertThat(keys.getValue().getSpec().getIntervals()).containsExactly(new ScheduleIntervalSpec(Duration.ofDays(30)));
    ScheduleActionStartWorkflow key = (ScheduleActionStartWorkflow) keys.getValue().getAction();
    assertThat(key.getWorkflowType()).isEqualTo("SigningKeyRotation");
    assertThat(key.getOptions().getWorkflowId()).isEqualTo(WorkflowIds.SIGNING_KEY_ROTATION);
  }

  @Test
  void existingSchedulesAreKeptAndBroughtUpToDate() {
    ScheduleClient schedules = mock(ScheduleClient.class);
    ScheduleHandle handle = mock(ScheduleHandle.class);
    when(schedules.createSchedule(any(), any(), any())).thenThrow(new ScheduleAlreadyRunningException(
        new StatusRuntimeException(Status.ALREADY_EXISTS)));
    when(schedules.getHandle(any())).thenReturn(handle);

    assertThat(new TokenRotationSchedules(schedules, DEFAULTS).start()).isTrue();
    verify(handle, times(2)).update(any());
  }

  @Test
  void aServerNotReadyYetIsAskedAgainUntilBothAreScheduled() {
    ScheduleClient schedules = mock(ScheduleClient.class);
    when(schedules.createSchedule(any(), any(), any()))
        .thenThrow(new StatusRuntimeException(Status.UNAVAILABLE))
        .thenReturn(null);
    TokenRotationSchedules rotation = new TokenRotationSchedules(schedules, DEFAULTS);

    assertThat(rotation.start()).isFalse();
    rotation.retryUntilScheduled();
    assertThat(rotation.scheduled()).isTrue();
    rotation.retryUntilScheduled();
    verify(schedules, times(4)).createSchedule(any(), any(), any());
  }
}
