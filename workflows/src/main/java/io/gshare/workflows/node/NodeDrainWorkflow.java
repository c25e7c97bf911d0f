package io.gshare.workflows.node;

import io.gshare.workflows.common.OperationProgress;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Drains one node ({@code node-drain-<nodeId>}): cordon it, settle every session on it through the
 * session's own workflow, evict the other pods honouring PodDisruptionBudgets, mark it drained.
 */
@WorkflowInterface
public interface NodeDrainWorkflow {

  @WorkflowMethod(name = "NodeDrain")
  OperationProgress drain(DrainRequest request);

  @QueryMethod(name = "progress")
  OperationProgress progress();
}
