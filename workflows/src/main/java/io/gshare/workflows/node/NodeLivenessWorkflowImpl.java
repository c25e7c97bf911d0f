package io.gshare.workflows.node;

import io.gshare.workflows.common.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;

public class NodeLivenessWorkflowImpl implements NodeLivenessWorkflow {

  private final NodeLivenessActivities liveness = Workflow.newActivityStub(NodeLivenessActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
              .setMaximumAttempts(3).build())
          .build());

  @Override
  public List<String> sweep() {
    return liveness.alertOfflineNodes();
  }
}
