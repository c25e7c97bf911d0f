package io.gshare.workflows.cluster;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Proves that a kubeconfig offered in a cluster change (PATCH with {@code kubeconfig}) reaches that very cluster,
 * from a control worker rather than the api's request thread: the api only starts it and waits for its answer.
 */
@WorkflowInterface
public interface KubeconfigProofWorkflow {

  @WorkflowMethod(name = "KubeconfigProof")
  KubeconfigProof prove(KubeconfigProofRequest request);
}
