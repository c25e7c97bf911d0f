package io.gshare.api.alert;

import io.gshare.api.temporal.BootSchedules;
import io.gshare.workflows.alert.AlertDeliveryWorkflow;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleClient;
import java.time.Duration;
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
    return sweep(AlertDeliveryWorkflow.class, WorkflowIds.ALERT_DELIVERY, properties.deliveryInterval(), MIN_TIMEOUT);
  }
}
