package io.gshare.workflows.session;

import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

public class MeteringWorkflowImpl implements MeteringWorkflow {

  /** Windows charged per statement (one transaction each): 10,000 open windows take 4 full batches and an empty one. */
  static final int BATCH = 2500;

  private final MeteringActivities metering = Workflow.newActivityStub(MeteringActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(50))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(2))
              .setMaximumAttempts(3).build())
          .build());

  @Override
  public int sweep() {
    MeteringResult result = metering.chargeOpenWindows(BATCH);
    for (String sessionId : result.exhausted()) {
      try {
        Workflow.newUntypedExternalWorkflowStub(WorkflowIds.session(sessionId)).signal("creditsExhausted");
      } catch (io.temporal.workflow.SignalExternalWorkflowException gone) {
        // The session ended (or its execution is being recovered): its next sweep finds it again if still open.
      }
    }
    return result.charged();
  }
}
