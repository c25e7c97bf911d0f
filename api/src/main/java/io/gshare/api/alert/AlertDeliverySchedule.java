package io.gshare.api.alert;

import io.gshare.api.temporal.BootSchedules;
import io.gshare.workflows.alert.AlertDeliveryWorkflow;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
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
import org.springframework.stereotype.Component;

/**
 * Creates the Temporal Schedule {@code alert-delivery} (every {@code gshare.alerts.delivery-interval}) at boot; see
 * {@link BootSchedules}. One delivery pass at a time for the whole control plane, however many api replicas run.
 */
@Component
class AlertDeliverySchedule extends BootSchedules {

  /** How often creating the Schedule is tried again while Temporal is not ready. */
  static final Duration RETRY = Duration.ofSeconds(30);
  /** The shortest interval a Temporal Schedule takes: a shorter {@code delivery-interval} runs every second. */
  static final Duration SHORTEST = Duration.ofSeconds(1);
  /** A pass normally takes milliseconds; one held up by a slow receiver is given up by then, and the next tick runs. */
  static final Duration MIN_TIMEOUT = Duration.ofMinutes(10);

  private final AlertProperties properties;

  AlertDeliverySchedule(ScheduleClient schedules, AlertProperties properties) {
    super(schedules, RETRY);
    this.properties = properties;
  }

  @Override
  protected Map<String, Schedule> desired() {
    return Map.of(WorkflowIds.ALERT_DELIVERY, alertDelivery(properties));
  }

  /** A pass still running skips the next tick, and missed ticks are not replayed (each pass sends what is due now). */
  static Schedule alertDelivery(AlertProperties properties) {
    Duration every = properties.deliveryInterval().compareTo(SHORTEST) < 0 ? SHORTEST : properties.deliveryInterval();
    Duration timeout = every.multipliedBy(5).compareTo(MIN_TIMEOUT) < 0 ? MIN_TIMEOUT : every.multipliedBy(5);
    return Schedule.newBuilder()
        .setAction(ScheduleActionStartWorkflow.newBuilder()
            .setWorkflowType(AlertDeliveryWorkflow.class)
            .setOptions(WorkflowOptions.newBuilder().setWorkflowId(WorkflowIds.ALERT_DELIVERY)
                .setTaskQueue(TaskQueues.CONTROL).setWorkflowExecutionTimeout(timeout).build())
            .build())
        .setSpec(ScheduleSpec.newBuilder().setIntervals(List.of(new ScheduleIntervalSpec(every))).build())
        .setPolicy(SchedulePolicy.newBuilder().setOverlap(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP)
            .setCatchupWindow(every.compareTo(Duration.ofSeconds(10)) < 0 ? Duration.ofSeconds(10) : every).build())
        .build();
  }
}
