package io.gshare.workflows.cluster;

import io.gshare.workflows.common.OperationProgress;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Attaches a registered cluster ({@code cluster-attach-<clusterId>}): reach its apiserver from the
 * control plane, check its runtime, install the worker's namespace, token and the worker itself, wait
 * until the worker polls its queue and reports an inventory, mark it connected. Every step converges,
 * so attaching again, or a retry after a crash, ends in the same state.
 */
@WorkflowInterface
public interface ClusterAttachWorkflow {

  @WorkflowMethod(name = "ClusterAttach")
  OperationProgress attach(ClusterAttachRequest request);

  @QueryMethod(name = "progress")
  OperationProgress progress();
}
