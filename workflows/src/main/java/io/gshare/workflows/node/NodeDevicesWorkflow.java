package io.gshare.workflows.node;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Writes the node's cordoned GPUs (from Postgres) to HAMi's {@code hami.io/device-cordon} annotation
 * ({@code node-devices-<nodeId>}). It always writes the whole current set, so a newer run replaces an
 * older one and a retry converges.
 */
@WorkflowInterface
public interface NodeDevicesWorkflow {

  @WorkflowMethod(name = "NodeDevices")
  void sync(NodeTarget node);
}
