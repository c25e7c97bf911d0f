package io.gshare.api.node;

import io.gshare.api.temporal.BootSchedules;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.node.NodeLivenessWorkflow;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleClient;
import java.time.Duration;
import java.util.Map;
import org.springframework.stereotype.Component;

/**
 * Creates the Temporal Schedule {@code node-liveness} (every {@code gshare.node.sweep-interval}) at boot; see
 * {@link BootSchedules}. One sweep at a time for the whole control plane, however many api replicas run.
 */
@Component
class NodeLivenessSchedule extends BootSchedules {

  /** How often creating the Schedule is tried again while Temporal is not ready. */
  static final Duration RETRY = Duration.ofSeconds(30);
  /** A sweep is a query and a few inserts: one that has not ended by then is given up, and the next tick runs. */
  static final Duration MIN_TIMEOUT = Duration.ofMinutes(1);

  private final NodeProperties properties;

  NodeLivenessSchedule(ScheduleClient schedules, NodeProperties properties) {
    super(schedules, RETRY);
    this.properties = properties;
  }

  @Override
  protected Map<String, Schedule> desired() {
    return Map.of(WorkflowIds.NODE_LIVENESS, nodeLiveness(properties));
  }

  /** A sweep still running skips the next tick, and missed ticks are not replayed (each sweep looks at now). */
  static Schedule nodeLiveness(NodeProperties properties) {
    return sweep(NodeLivenessWorkflow.class, WorkflowIds.NODE_LIVENESS, properties.sweepInterval(), MIN_TIMEOUT);
  }
}
