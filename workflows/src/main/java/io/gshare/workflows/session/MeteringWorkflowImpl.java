package io.gshare.workflows.session;

import io.gshare.workflows.common.ExternalSignals;
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
      // A session that ended meanwhile (or whose execution is being recovered) is not signalled: its next sweep
      // finds it again if it is still open. Before ExternalSignals, a NOT_FOUND here failed the whole sweep.
      ExternalSignals.signal(() -> Workflow.newUntypedExternalWorkflowStub(WorkflowIds.session(sessionId))
          .signal("creditsExhausted"));
    }
    return result.charged();
  }
}
