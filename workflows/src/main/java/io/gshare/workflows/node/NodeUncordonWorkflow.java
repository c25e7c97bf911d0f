package io.gshare.workflows.node;

import io.gshare.workflows.common.OperationProgress;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Undoes a drain ({@code node-uncordon-<nodeId>}): clears {@code spec.unschedulable} in the cluster and
 * the drain mark in Postgres. A drain still running is cancelled by the API before this starts.
 */
@WorkflowInterface
public interface NodeUncordonWorkflow {

  @WorkflowMethod(name = "NodeUncordon")
  OperationProgress uncordon(NodeTarget node);

  @QueryMethod(name = "progress")
  OperationProgress progress();
}
