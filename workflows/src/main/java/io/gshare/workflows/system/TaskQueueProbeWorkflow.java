package io.gshare.workflows.system;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/** Finds out whether some worker polls a task queue, by pinging through it. */
@WorkflowInterface
public interface TaskQueueProbeWorkflow {

  @WorkflowMethod(name = "TaskQueueProbe")
  TaskQueueProbeResult probe(TaskQueueProbeRequest request);
}
