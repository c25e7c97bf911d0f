package io.gshare.workflows.cluster;

import io.gshare.workflows.common.OperationProgress;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Detaches a cluster ({@code cluster-detach-<clusterId>}): refused while sessions run or resources are
 * allocated on it; otherwise removes the worker and its Secret, deletes node and GPU rows (sessions and
 * allocations keep their history) and marks the cluster detached.
 */
@WorkflowInterface
public interface ClusterDetachWorkflow {

  @WorkflowMethod(name = "ClusterDetach")
  OperationProgress detach(String clusterId);

  @QueryMethod(name = "progress")
  OperationProgress progress();
}
