package io.gshare.api.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.session.MeteringWorkflow;
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
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

/** The sweep is a Temporal Schedule every minute; MeteringScheduleIT sees it fire on a real server. */
class MeteringScheduleTest {

  private static final MeteringProperties EVERY_MINUTE = new MeteringProperties(true, Duration.ofMinutes(1));

  @Test
  void theScheduleFiresEveryMinuteOnTheControlQueueAndSkipsOverlaps() {
    ScheduleClient schedules = mock(ScheduleClient.class);
    ArgumentCaptor<Schedule> created = ArgumentCaptor.forClass(Schedule.class);
    when(schedules.createSchedule(eq(MeteringWorkflow.ID), created.capture(), any())).thenReturn(null);

    assertThat(new MeteringSchedule(schedules, EVERY_MINUTE).start()).isTrue();

    Schedule schedule = created.getValue();
    assertThat(schedule.getSpec().getIntervals()).containsExactly(new ScheduleIntervalSpec(Duration.ofMinutes(1)));
    assertThat(schedule.getPolicy().getOverlap()).isEqualTo(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP);
    ScheduleActionStartWorkflow action = (ScheduleActionStartWorkflow) schedule.getAction();
    assertThat(action.getWorkflowType()).isEqualTo("MeteringSweep");
    assertThat(action.getOptions().getTaskQueue()).isEqualTo(TaskQueues.CONTROL);
    assertThat(action.getOptions().getWorkflowId()).isEqualTo(MeteringWorkflow.ID);
  }

  @Test
  void anExistingScheduleIsBroughtUpToDate() {
    ScheduleClient schedules = mock(ScheduleClient.class);
    ScheduleHandle handle = mock(ScheduleHandle.class);
    when(schedules.createSchedule(any(), any(), any())).thenThrow(new ScheduleAlreadyRunningException(
        new StatusRuntimeException(Status.ALREADY_EXISTS)));
    when(schedules.getHandle(MeteringWorkflow.ID)).thenReturn(handle);

    assertThat(new MeteringSchedule(schedules, EVERY_MINUTE).start()).isTrue();
    verify(handle).update(any());
  }

  @Test
  void aServerNotReadyYetIsAskedAgainUntilTheSweepIsScheduled() {
    ScheduleClient schedules = mock(ScheduleClient.class);
    when(schedules.createSchedule(any(), any(), any()))
        .thenThrow(new StatusRuntimeException(Status.UNAVAILABLE))
        .thenReturn(null);
    MeteringSchedule metering = new MeteringSchedule(schedules, EVERY_MINUTE);

    assertThat(metering.start()).isFalse();
    assertThat(metering.scheduled()).isFalse();
    metering.retryUntilScheduled();
    assertThat(metering.scheduled()).isTrue();
    metering.retryUntilScheduled();
    verify(schedules, times(2)).createSchedule(any(), any(), any());
  }

  @Test
  void theRetryRunsEveryRetryIntervalFirstAfterOneInterval() {
    MeteringSchedule metering = new MeteringSchedule(mock(ScheduleClient.class),
        new MeteringProperties(true, Duration.ofSeconds(7)));
    ScheduledTaskRegistrar tasks = new ScheduledTaskRegistrar();

    metering.configureTasks(tasks);

    assertThat(tasks.getFixedDelayTaskList()).singleElement().satisfies(task -> {
      assertThat(task.getIntervalDuration()).isEqualTo(Duration.ofSeconds(7));
      assertThat(task.getInitialDelayDuration()).isEqualTo(Duration.ofSeconds(7));
    });
  }
}
