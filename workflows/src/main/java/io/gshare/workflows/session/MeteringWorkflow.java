package io.gshare.workflows.session;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * The metering sweep ({@code metering-sweep}), run every minute by the Temporal Schedule of the same
 * id: charges every open billing window minute by minute, and tells the
 * sessions whose balance cannot cover the next minute to pause.
 */
@WorkflowInterface
public interface MeteringWorkflow {

  String ID = "metering-sweep";

  @WorkflowMethod(name = "MeteringSweep")
  int sweep();
}
