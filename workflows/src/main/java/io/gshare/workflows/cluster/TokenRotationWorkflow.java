package io.gshare.workflows.cluster;

import io.gshare.workflows.common.OperationProgress;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Rotates operator tokens ({@code token-rotation}, started by the Schedule of the same name, or
 * {@code token-rotation-<clusterId>} for one cluster): for each cluster, sign a new token and write it
 * into the cluster's Secret in one control activity, then wait until the cluster's worker authenticates
 * with it. A cluster that cannot be reached, or whose worker does not take the new token, is reported in
 * its step and, when its current token is about to expire, raises an alert; the others still rotate.
 */
@WorkflowInterface
public interface TokenRotationWorkflow {

  @WorkflowMethod(name = "TokenRotation")
  OperationProgress rotate(TokenRotationRequest request);

  @QueryMethod(name = "progress")
  OperationProgress progress();
}
