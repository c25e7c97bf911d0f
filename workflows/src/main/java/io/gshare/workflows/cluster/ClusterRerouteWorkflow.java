package io.gshare.workflows.cluster;

import io.gshare.workflows.common.OperationProgress;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Moves every live session of a cluster to its new session domain or routing ({@code cluster-reroute-<clusterId>}),
 * each through its own workflow, one step per session.
 */
@WorkflowInterface
public interface ClusterRerouteWorkflow {

  @WorkflowMethod(name = "ClusterReroute")
  OperationProgress reroute(ClusterRerouteRequest request);

  @QueryMethod(name = "progress")
  OperationProgress progress();
}
