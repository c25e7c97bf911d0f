package io.gshare.workflows.node;

import static io.gshare.workflows.common.Failures.rootMessage;

import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.Progress;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;

/** Clears the cordon in the cluster first, then the drain mark, so placement never picks a node the cluster still refuses. */
public class NodeUncordonWorkflowImpl implements NodeUncordonWorkflow {

  static final String UNCORDON = "uncordon the node";
  static final String CLEAR = "clear the drain mark";

  private final NodeDrainActivities control = Workflow.newActivityStub(NodeDrainActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
              .setMaximumInterval(Duration.ofSeconds(20)).build())
          .build());

  private Progress progress;

  @Override
  public OperationProgress uncordon(NodeTarget node) {
    progress = new Progress(WorkflowIds.nodeUncordon(node.nodeId()), "node.uncordon", node.nodeId(), List.of(UNCORDON, CLEAR));
    progress.start(UNCORDON);
    try {
      NodeDrainWorkflowImpl.clusterStub(node.clusterId(), Duration.ofMinutes(5)).setUnschedulable(node.hostname(), false);
    } catch (ActivityFailure e) {
      String why = "could not reach cluster " + node.clusterId() + " to uncordon " + node.hostname() + ": " + rootMessage(e)
          + ". The node stays draining; uncordon again";
      progress.fail(why);
      control.recordOperation(progress.snapshot());
      throw ApplicationFailure.newNonRetryableFailure(why, "node_uncordon_failed");
    }
    progress.done(UNCORDON, "spec.unschedulable cleared on " + node.hostname());
    progress.start(CLEAR);
    control.clearDrain(node.nodeId());
    progress.done(CLEAR, "placement may choose the node again");
    progress.complete();
    control.recordOperation(progress.snapshot());
    return progress.snapshot();
  }

  @Override
  public OperationProgress progress() {
    return progress == null ? null : progress.snapshot();
  }
}
