package io.gshare.api.session;

import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.session.MeteringWorkflow;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Starts the metering sweep at boot as a cron workflow ({@code metering-sweep}, every minute). Cron
 * rather than a Temporal Schedule so the same mechanism runs on the embedded dev server, which has no
 * Schedule API; starting it again finds the one already running.
 */
@Component
@ConditionalOnProperty(prefix = "gshare.metering", name = "enabled", havingValue = "true", matchIfMissing = true)
class MeteringSchedule {

  private static final Logger log = LoggerFactory.getLogger(MeteringSchedule.class);

  private final WorkflowClient client;

  MeteringSchedule(WorkflowClient client) {
    this.client = client;
  }

  @EventListener(ApplicationReadyEvent.class)
  void start() {
    MeteringWorkflow sweep = client.newWorkflowStub(MeteringWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(MeteringWorkflow.ID)
        .setTaskQueue(TaskQueues.CONTROL)
        .setCronSchedule(MeteringWorkflow.CRON)
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
        .build());
    try {
      WorkflowClient.start(sweep::sweep);
      log.info("metering sweep scheduled every minute ({})", MeteringWorkflow.ID);
    } catch (WorkflowExecutionAlreadyStarted running) {
      log.info("metering sweep already scheduled");
    } catch (RuntimeException e) {
      log.warn("could not schedule the metering sweep: {}", e.toString());
    }
  }
}
