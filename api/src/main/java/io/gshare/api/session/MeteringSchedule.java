package io.gshare.api.session;

import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.session.MeteringWorkflow;
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
 * Creates the Temporal Schedule {@code metering-sweep} at boot, firing every minute. Creating it again
 * finds the one there (a dev server with a database file, or any production server, keeps it across
 * restarts); while Temporal is unreachable it is retried every {@code gshare.metering.retry-interval} until it exists.
 */
@Component
@ConditionalOnProperty(prefix = "gshare.metering", name = "enabled", havingValue = "true", matchIfMissing = true)
class MeteringSchedule implements SchedulingConfigurer {

  private static final Logger log = LoggerFactory.getLogger(MeteringSchedule.class);
  static final Duration EVERY = Duration.ofMinutes(1);

  private final ScheduleClient schedules;
  private final MeteringProperties properties;
  private volatile boolean scheduled;

  MeteringSchedule(ScheduleClient schedules, MeteringProperties properties) {
    this.schedules = schedules;
    this.properties = properties;
  }

  /** A listener that returns nothing: Spring would publish a returned value as an event. */
  @EventListener(ApplicationReadyEvent.class)
  void onReady() {
    start();
  }

  /** Creates the Schedule unless it exists; true once it does. */
  boolean start() {
    scheduled = schedule();
    return scheduled;
  }

  /** Every {@code gshare.metering.retry-interval} (a minute), first after one interval. */
  @Override
  public void configureTasks(ScheduledTaskRegistrar tasks) {
    Duration every = properties.retryInterval();
    tasks.addFixedDelayTask(new FixedDelayTask(this::retryUntilScheduled, every, every));
  }

  /** Temporal may still be coming up when the api is ready: keep trying until the sweep is scheduled. */
  void retryUntilScheduled() {
    if (!scheduled) {
      start();
    }
  }

  boolean scheduled() {
    return scheduled;
  }

  private boolean schedule() {
    try {
      schedules.createSchedule(MeteringWorkflow.ID, everyMinute(), ScheduleOptions.newBuilder().build());
      log.info("metering sweep scheduled every {}s (Temporal Schedule {})", EVERY.toSeconds(), MeteringWorkflow.ID);
      return true;
    } catch (ScheduleAlreadyRunningException exists) {
      log.info("metering sweep already scheduled (Temporal Schedule {})", MeteringWorkflow.ID);
      return true;
    } catch (RuntimeException e) {
      log.warn("could not create the metering schedule (retried every {}): {}", properties.retryInterval(), e.toString());
      return false;
    }
  }

  /** Every minute; a sweep still running skips the next tick, and missed ticks are not replayed (each sweep charges up to now). */
  static Schedule everyMinute() {
    return Schedule.newBuilder()
        .setAction(ScheduleActionStartWorkflow.newBuilder()
            .setWorkflowType(MeteringWorkflow.class)
            .setOptions(WorkflowOptions.newBuilder().setWorkflowId(MeteringWorkflow.ID).setTaskQueue(TaskQueues.CONTROL)
                .setWorkflowExecutionTimeout(EVERY.multipliedBy(5)).build())
            .build())
        .setSpec(ScheduleSpec.newBuilder().setIntervals(List.of(new ScheduleIntervalSpec(EVERY))).build())
        .setPolicy(SchedulePolicy.newBuilder().setOverlap(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP)
            .setCatchupWindow(EVERY).build())
        .build();
  }
}
