package io.gshare.api.session;

import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.session.MeteringWorkflow;
import io.grpc.Status;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
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
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Starts the metering sweep at boot: a Temporal Schedule {@code metering-sweep} firing every minute on a
 * full server; on a server without the Schedule API (the embedded dev server answers UNIMPLEMENTED) a
 * cron workflow with the same id and period instead. Either way, starting again finds the one there.
 */
@Component
@ConditionalOnProperty(prefix = "gshare.metering", name = "enabled", havingValue = "true", matchIfMissing = true)
class MeteringSchedule {

  private static final Logger log = LoggerFactory.getLogger(MeteringSchedule.class);
  static final Duration EVERY = Duration.ofMinutes(1);

  /** How the sweep ended up scheduled. */
  enum Kind { SCHEDULE, CRON_WORKFLOW, NONE }

  private final WorkflowClient client;
  private final ScheduleClient schedules;
  private volatile boolean scheduled;

  MeteringSchedule(WorkflowClient client, ScheduleClient schedules) {
    this.client = client;
    this.schedules = schedules;
  }

  /** A listener that returns nothing: Spring would publish a returned value as an event. */
  @EventListener(ApplicationReadyEvent.class)
  void onReady() {
    start();
  }

  Kind start() {
    Kind kind = schedule();
    scheduled = kind != Kind.NONE;
    return kind;
  }

  /** Temporal may still be coming up when the api is ready: keep trying until the sweep is scheduled. */
  @Scheduled(fixedDelayString = "${gshare.metering.retry-interval:60s}", initialDelayString = "${gshare.metering.retry-interval:60s}")
  void retryUntilScheduled() {
    if (!scheduled) {
      start();
    }
  }

  boolean scheduled() {
    return scheduled;
  }

  private Kind schedule() {
    try {
      schedules.createSchedule(MeteringWorkflow.ID, everyMinute(), ScheduleOptions.newBuilder().build());
      log.info("metering sweep scheduled every {}s (Temporal Schedule {})", EVERY.toSeconds(), MeteringWorkflow.ID);
      return Kind.SCHEDULE;
    } catch (ScheduleAlreadyRunningException exists) {
      log.info("metering sweep already scheduled (Temporal Schedule {})", MeteringWorkflow.ID);
      return Kind.SCHEDULE;
    } catch (RuntimeException e) {
      if (Status.fromThrowable(e).getCode() != Status.Code.UNIMPLEMENTED) {
        log.warn("could not create the metering schedule (retried every minute): {}", e.toString());
        return Kind.NONE;
      }
    }
    return startCronWorkflow();
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

  private Kind startCronWorkflow() {
    MeteringWorkflow sweep = client.newWorkflowStub(MeteringWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(MeteringWorkflow.ID)
        .setTaskQueue(TaskQueues.CONTROL)
        .setCronSchedule(MeteringWorkflow.CRON)
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
        .build());
    try {
      WorkflowClient.start(sweep::sweep);
      log.info("metering sweep scheduled every minute (cron workflow {}: this server has no Schedule API)", MeteringWorkflow.ID);
    } catch (WorkflowExecutionAlreadyStarted running) {
      log.info("metering sweep already scheduled (cron workflow {})", MeteringWorkflow.ID);
    } catch (RuntimeException e) {
      log.warn("could not schedule the metering sweep (retried every minute): {}", e.toString());
      return Kind.NONE;
    }
    return Kind.CRON_WORKFLOW;
  }
}
