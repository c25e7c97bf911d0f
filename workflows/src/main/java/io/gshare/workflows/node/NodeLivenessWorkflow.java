package io.gshare.workflows.node;

import io.gshare.workflows.common.WorkflowIds;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * The node liveness sweep ({@value WorkflowIds#NODE_LIVENESS}), run every {@code gshare.node.sweep-interval} by the
 * Temporal Schedule of the same id: nodes whose worker stopped reporting them raise the NodeOffline alert, once per
 * outage. A Schedule, not a timer in each api process: one sweep at a time however many replicas run.
 */
@WorkflowInterface
public interface NodeLivenessWorkflow {

  /** The hostnames found offline by this sweep (each once per outage). */
  @WorkflowMethod(name = "NodeLiveness")
  List<String> sweep();
}
