package io.gshare.api.temporalgateway;

/** Told of every call the gateway refuses, for the audit log (an {@code access.denied} event, one per minute). */
@FunctionalInterface
public interface DeniedCalls {

  /**
   * @param clusterId the caller's cluster; null when it was not authenticated
   * @param method the gRPC method, e.g. {@code temporal.api.workflowservice.v1.WorkflowService/StartWorkflowExecution}
   * @param rule why, in words (the status's description)
   */
  void denied(String clusterId, String method, String rule);
}
