package io.gshare.api.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.session.MeteringWorkflow;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleAlreadyRunningException;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

/** The sweep is a Temporal Schedule where the server has the API, a cron workflow where it has not. */
class MeteringScheduleTest {

  private TestWorkflowEnvironment env;
  private WorkflowClient client;

  @BeforeEach
  void server() {
    env = TestWorkflowEnvironment.newInstance();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void close() {
    env.close();
  }

  private String cronOfTheSweep() {
    return client.fetchHistory(MeteringWorkflow.ID).getHistory().getEvents(0)
        .getWorkflowExecutionStartedEventAttributes().getCronSchedule();
  }

  @Test
  void aFullServerGetsAScheduleEveryMinuteThatSkipsOverlapsAndNoCronWorkflow() {
    ScheduleClient schedules = mock(ScheduleClient.class);
    ArgumentCaptor<Schedule> created = ArgumentCaptor.forClass(Schedule.class);
    when(schedules.createSchedule(eq(MeteringWorkflow.ID), created.capture(), any())).thenReturn(null);

    assertThat(new MeteringSchedule(client, schedules).start()).isEqualTo(MeteringSchedule.Kind.SCHEDULE);

    Schedule schedule = created.getValue();
    assertThat(schedule.getSpec().getIntervals()).containsExactly(new ScheduleIntervalSpec(Duration.ofMinutes(1)));
    assertThat(schedule.getPolicy().getOverlap()).isEqualTo(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP);
    ScheduleActionStartWorkflow action = (ScheduleActionStartWorkflow) schedule.getAction();
    assertThat(action.getWorkflowType()).isEqualTo("MeteringSweep");
    assertThat(action.getOptions().getTaskQueue()).isEqualTo(TaskQueues.CONTROL);
    assertThat(action.getOptions().getWorkflowId()).isEqualTo(MeteringWorkflow.ID);
    assertThatThrownBy(this::cronOfTheSweep).isInstanceOf(StatusRuntimeException.class);
  }

  @Test
  void anExistingScheduleIsKept() {
    ScheduleClient schedules = mock(ScheduleClient.class);
    when(schedules.createSchedule(any(), any(), any())).thenThrow(new ScheduleAlreadyRunningException(
        new StatusRuntimeException(Status.ALREADY_EXISTS)));

    assertThat(new MeteringSchedule(client, schedules).start()).isEqualTo(MeteringSchedule.Kind.SCHEDULE);
    assertThatThrownBy(this::cronOfTheSweep).isInstanceOf(StatusRuntimeException.class);
  }

  @Test
  void theEmbeddedServerWithoutScheduleApiGetsOneCronWorkflow() {
    ScheduleClient real = ScheduleClient.newInstance(env.getWorkflowServiceStubs());
    MeteringSchedule metering = new MeteringSchedule(client, real);

    assertThat(metering.start()).isEqualTo(MeteringSchedule.Kind.CRON_WORKFLOW);
    assertThat(metering.start()).as("started again: the one running is found").isEqualTo(MeteringSchedule.Kind.CRON_WORKFLOW);
    assertThat(cronOfTheSweep()).isEqualTo(MeteringWorkflow.CRON);
  }

  @Test
  void aServerNotReadyYetIsAskedAgainUntilTheSweepIsScheduled() {
    ScheduleClient schedules = mock(ScheduleClient.class);
    when(schedules.createSchedule(any(), any(), any()))
        .thenThrow(new StatusRuntimeException(Status.UNAVAILABLE))
        .thenReturn(null);
    MeteringSchedule metering = new MeteringSchedule(client, schedules);

    assertThat(metering.start()).isEqualTo(MeteringSchedule.Kind.NONE);
    assertThat(metering.scheduled()).isFalse();
    assertThatThrownBy(this::cronOfTheSweep).isInstanceOf(StatusRuntimeException.class);
    metering.retryUntilScheduled();
    assertThat(metering.scheduled()).isTrue();
    metering.retryUntilScheduled();
    verify(schedules, times(2)).createSchedule(any(), any(), any());
  }
}
