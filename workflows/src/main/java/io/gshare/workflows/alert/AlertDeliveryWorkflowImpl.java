package io.gshare.workflows.alert;

import io.gshare.workflows.common.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

public class AlertDeliveryWorkflowImpl implements AlertDeliveryWorkflow {

  /** Batches one pass sends at most (each a transaction of its own); what is left waits for the next tick. */
  static final int MAX_BATCHES = 50;

  private final AlertDeliveryActivities resolve = Workflow.newActivityStub(AlertDeliveryActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
              .setMaximumAttempts(3).build())
          .build());

  /**
   * A batch sends up to 20 alerts, each bounded by {@code gshare.alerts.timeout}. One that outlives this (a receiver
   * slower than that) is retried, and the retry skips the rows the first attempt still holds locked: nothing is sent
   * twice.
   */
  private final AlertDeliveryActivities deliver = Workflow.newActivityStub(AlertDeliveryActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofMinutes(5))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
              .setMaximumAttempts(3).build())
          .build());

  @Override
  public AlertDeliveryRun deliver() {
    int resolved = resolve.resolveEnded();
    int delivered = 0;
    int failed = 0;
    for (int i = 0; i < MAX_BATCHES; i++) {
      AlertBatch batch = deliver.deliverBatch();
      delivered += batch.delivered();
      failed += batch.claimed() - batch.delivered();
      if (!batch.full()) {
        break;
      }
    }
    return new AlertDeliveryRun(resolved, delivered, failed);
  }
}
