package io.gshare.workflows.cluster;

import io.gshare.workflows.common.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

public class KubeconfigProofWorkflowImpl implements KubeconfigProofWorkflow {

  /** An apiserver that does not answer within this is itself the answer ("does not reach its cluster"). */
  private final KubeconfigProofActivities proofs = Workflow.newActivityStub(KubeconfigProofActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          // A worker lost mid-proof: once more on another; a refusal is an answer, not a failure, and is not retried.
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1)).setMaximumAttempts(2)
              .build())
          .build());

  @Override
  public KubeconfigProof prove(KubeconfigProofRequest request) {
    return proofs.proveSameCluster(request);
  }
}
