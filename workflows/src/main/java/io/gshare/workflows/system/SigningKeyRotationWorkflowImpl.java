package io.gshare.workflows.system;

import io.gshare.workflows.common.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

public class SigningKeyRotationWorkflowImpl implements SigningKeyRotationWorkflow {

  private final SigningKeyActivities keys = Workflow.newActivityStub(SigningKeyActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(5))
              .setMaximumInterval(Duration.ofMinutes(1)).setMaximumAttempts(10).build())
          .build());

  @Override
  public String rotate() {
    return keys.rotateInternalSigningKey();
  }
}
