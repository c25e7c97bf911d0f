package io.gshare.api.cluster;

import io.gshare.api.temporal.BootSchedules;
import io.gshare.workflows.cluster.TokenRotationWorkflow;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.system.SigningKeyRotationWorkflow;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import io.temporal.client.schedules.SchedulePolicy;
import io.temporal.client.schedules.ScheduleSpec;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * Creates the Temporal Schedules {@code token-rotation} (every {@code gshare.tokens.rotation-interval}) and
 * {@code signing-key-rotation} (every {@code gshare.tokens.signing-key-rotation-interval}) at boot (see
 * {@link BootSchedules}: an existing one is brought up to date; retried every {@code gshare.tokens.retry-interval}
 * while Temporal is unreachable).
 */
@Component
@ConditionalOnProperty(prefix = "gshare.tokens", name = "enabled", havingValue = "true", matchIfMissing = true)
class TokenRotationSchedules extends BootSchedules {

  private final TokenRotationProperties properties;

  TokenRotationSchedules(ScheduleClient schedules, TokenRotationProperties properties) {
    super(schedules, properties.retryInterval());
    this.properties = properties;
  }

  @Override
  protected Map<String, Schedule> desired() {
    Map<String, Schedule> desired = new LinkedHashMap<>();
    desired.put(WorkflowIds.TOKEN_ROTATION, tokenRotation(properties));
    desired.put(WorkflowIds.SIGNING_KEY_ROTATION, signingKeyRotation(properties));
    return desired;
  }

  /** A rotation still running skips the next tick; a missed tick runs once when the server is back. */
  static Schedule tokenRotation(TokenRotationProperties properties) {
    return Schedule.newBuilder()
        .setAction(ScheduleActionStartWorkflow.newBuilder()
            .setWorkflowType(TokenRotationWorkflow.class)
            .setArguments(properties.request(null))
            .setOptions(WorkflowOptions.newBuilder().setWorkflowId(WorkflowIds.TOKEN_ROTATION)
                .setTaskQueue(TaskQueues.CONTROL).setWorkflowExecutionTimeout(Duration.ofHours(2)).build())
            .build())
        .setSpec(ScheduleSpec.newBuilder()
            .setIntervals(List.of(new ScheduleIntervalSpec(properties.rotationInterval()))).build())
        .setPolicy(SchedulePolicy.newBuilder().setOverlap(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP)
            .setCatchupWindow(properties.rotationInterval()).build())
        .build();
  }

  static Schedule signingKeyRotation(TokenRotationProperties properties) {
    return Schedule.newBuilder()
        .setAction(ScheduleActionStartWorkflow.newBuilder()
            .setWorkflowType(SigningKeyRotationWorkflow.class)
            .setOptions(WorkflowOptions.newBuilder().setWorkflowId(WorkflowIds.SIGNING_KEY_ROTATION)
                .setTaskQueue(TaskQueues.CONTROL).setWorkflowExecutionTimeout(Duration.ofHours(1)).build())
            .build())
        .setSpec(ScheduleSpec.newBuilder()
            .setIntervals(List.of(new ScheduleIntervalSpec(properties.signingKeyRotationInterval()))).build())
        .setPolicy(SchedulePolicy.newBuilder().setOverlap(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP)
            .setCatchupWindow(Duration.ofDays(1)).build())
        .build();
  }
}
