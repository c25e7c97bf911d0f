package io.gshare.workflows.session;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * The metering sweep ({@code metering-sweep}), run every minute by a Temporal Schedule (a cron workflow
 * on the embedded dev server, which has no Schedule API): charges every open billing window minute by minute, and tells the
 * sessions whose balance cannot cover the next minute to pause.
 */
@WorkflowInterface
public interface MeteringWorkflow {

  String ID = "metering-sweep";
  String CRON = "* * * * *";

  @WorkflowMethod(name = "MeteringSweep")
  int sweep();
}
