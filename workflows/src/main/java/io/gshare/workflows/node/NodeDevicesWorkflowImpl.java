package io.gshare.workflows.node;

import io.gshare.workflows.common.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/** Reads the cordoned GPUs, then writes them to the node: the annotation always ends as Postgres says. */
public class NodeDevicesWorkflowImpl implements NodeDevicesWorkflow {

  private final NodeDrainActivities control = Workflow.newActivityStub(NodeDrainActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
              .setMaximumInterval(Duration.ofSeconds(20)).build())
          .build());

  @Override
  public void sync(NodeTarget node) {
    NodeDrainWorkflowImpl.clusterStub(node.clusterId(), Duration.ofMinutes(30))
        .setDeviceCordon(node.hostname(), control.cordonedDevices(node.nodeId()));
  }
}
