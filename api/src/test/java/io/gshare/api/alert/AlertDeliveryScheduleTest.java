package io.gshare.api.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
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

/** Alert delivery is a Temporal Schedule, not a timer in each api; AlertsIT sees it deliver to a real receiver. */
class AlertDeliveryScheduleTest {

  private static Schedule created(Duration every) {
    ScheduleClient schedules = mock(ScheduleClient.class);
    ArgumentCaptor<Schedule> created = ArgumentCaptor.forClass(Schedule.class);
    when(schedules.createSchedule(eq(WorkflowIds.ALERT_DELIVERY), created.capture(), any())).thenReturn(null);
    AlertProperties properties = new AlertProperties("http://receiver.example.com/hook", every, Duration.ofSeconds(5),
        Duration.ofMinutes(5), Duration.ofSeconds(5), null);
    assertThat(new AlertDeliverySchedule(schedules, properties).start()).isTrue();
    // Delivery waits for its first tick: nothing is triggered at boot.
    verify(schedules, never()).getHandle(anyString());
    return created.getValue();
  }

  @Test
  void deliversEveryDeliveryIntervalOnTheControlQueueSkippingOverlapsAndMissedTicks() {
    Schedule schedule = created(Duration.ofSeconds(10));
    assertThat(schedule.getSpec().getIntervals()).containsExactly(new ScheduleIntervalSpec(Duration.ofSeconds(10)));
    assertThat(schedule.getPolicy().getOverlap()).isEqualTo(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP);
    assertThat(schedule.getPolicy().getCatchupWindow()).isEqualTo(Duration.ofSeconds(10));
    ScheduleActionStartWorkflow delivery = (ScheduleActionStartWorkflow) schedule.getAction();
    assertThat(delivery.getWorkflowType()).isEqualTo("AlertDelivery");
    assertThat(delivery.getOptions().getTaskQueue()).isEqualTo(TaskQueues.CONTROL);
    assertThat(delivery.getOptions().getWorkflowId()).isEqualTo(WorkflowIds.ALERT_DELIVERY);
    assertThat(delivery.getOptions().getWorkflowExecutionTimeout()).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void anIntervalBelowASecondRunsEverySecondTheShortestAScheduleTakes() {
    Schedule schedule = created(Duration.ofMillis(300));
    assertThat(schedule.getSpec().getIntervals()).containsExactly(new ScheduleIntervalSpec(Duration.ofSeconds(1)));
    assertThat(schedule.getPolicy().getCatchupWindow()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void aLongIntervalGivesAPassFiveIntervals() {
    Schedule schedule = created(Duration.ofMinutes(5));
    assertThat(((ScheduleActionStartWorkflow) schedule.getAction()).getOptions().getWorkflowExecutionTimeout())
        .isEqualTo(Duration.ofMinutes(25));
    assertThat(schedule.getPolicy().getCatchupWindow()).isEqualTo(Duration.ofMinutes(5));
  }
}
