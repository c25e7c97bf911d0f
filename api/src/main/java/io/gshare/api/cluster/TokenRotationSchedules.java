package io.gshare.api.cluster;

import io.gshare.workflows.cluster.TokenRotationWorkflow;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.system.SigningKeyRotationWorkflow;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleAlreadyRunningException;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import io.temporal.client.schedules.ScheduleOptions;
import io.temporal.client.schedules.SchedulePolicy;
import io.temporal.client.schedules.ScheduleSpec;
import io.temporal.client.schedules.ScheduleUpdate;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * Creates the Temporal Schedules {@code token-rotation} (every {@code gshare.tokens.rotation-interval}) and
 * {@code signing-key-rotation} (every {@code gshare.tokens.signing-key-rotation-interval}) at boot, as
 * {@code MeteringSchedule} does. Creating again finds the one there and brings its interval and settings
 * up to date (keeping a pause an operator set); while Temporal is unreachable it is retried every
 * {@code gshare.tokens.retry-interval}.
 */
@Component
@ConditionalOnProperty(prefix = "gshare.tokens", name = "enabled", havingValue = "true", matchIfMissing = true)
class TokenRotationSchedules implements SchedulingConfigurer {

  private static final Logger log = LoggerFactory.getLogger(TokenRotationSchedules.class);

  private final ScheduleClient schedules;
  private final TokenRotationProperties properties;
  private volatile boolean scheduled;

  TokenRotationSchedules(ScheduleClient schedules, TokenRotationProperties properties) {
    this.schedules = schedules;
    this.properties = properties;
  }

  @EventListener(ApplicationReadyEvent.class)
  void onReady() {
    start();
  }

  /** Creates (or updates) both Schedules; true once both exist. */
  boolean start() {
    boolean tokens = schedule(WorkflowIds.TOKEN_ROTATION, tokenRotation(properties));
    boolean keys = schedule(WorkflowIds.SIGNING_KEY_ROTATION, signingKeyRotation(properties));
    scheduled = tokens && keys;
    return scheduled;
  }

  @Override
  public void configureTasks(ScheduledTaskRegistrar tasks) {
    Duration every = properties.retryInterval();
    tasks.addFixedDelayTask(new FixedDelayTask(this::retryUntilScheduled, every, every));
  }

  void retryUntilScheduled() {
    if (!scheduled) {
      start();
    }
  }

  boolean scheduled() {
    return scheduled;
  }

  private boolean schedule(String id, Schedule desired) {
    try {
      schedules.createSchedule(id, desired, ScheduleOptions.newBuilder().build());
      log.info("Temporal Schedule {} created, every {}", id, desired.getSpec().getIntervals().get(0).getEvery());
      return true;
    } catch (ScheduleAlreadyRunningException exists) {
      try {
        schedules.getHandle(id).update(input -> new ScheduleUpdate(Schedule.newBuilder(desired)
            .setState(input.getDescription().getSchedule().getState()).build()));
        log.info("Temporal Schedule {} already there; its interval and settings brought up to date", id);
      } catch (RuntimeException e) {
        log.warn("Temporal Schedule {} exists but could not be updated: {}", id, e.toString());
      }
      return true;
    } catch (RuntimeException e) {
      log.warn("could not create the Temporal Schedule {} (retried every {}): {}", id, properties.retryInterval(),
          e.toString());
      return false;
    }
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
