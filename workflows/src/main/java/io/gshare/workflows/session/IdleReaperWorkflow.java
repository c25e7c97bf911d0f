package io.gshare.workflows.session;

import io.gshare.workflows.common.WorkflowIds;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * The idle reaper ({@value WorkflowIds#IDLE_REAPER}), run every minute by the Temporal Schedule of the same id:
 * one sweep decides which running sessions are idle for their policy's timeout, and each of them is told to
 * pause (signal {@code idle} with the reason). It never deletes anything.
 */
@WorkflowInterface
public interface IdleReaperWorkflow {

  @WorkflowMethod(name = "IdleReaper")
  IdleSweep sweep();
}
