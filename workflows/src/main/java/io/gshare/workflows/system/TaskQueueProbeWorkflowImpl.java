package io.gshare.workflows.system;

import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;

public class TaskQueueProbeWorkflowImpl implements TaskQueueProbeWorkflow {

  @Override
  public TaskQueueProbeResult probe(TaskQueueProbeRequest request) {
    WorkerPingActivities ping =
        Workflow.newActivityStub(
            WorkerPingActivities.class,
            ActivityOptions.newBuilder()
                .setTaskQueue(request.taskQueue())
                .setScheduleToStartTimeout(request.pollerWait())
                .setStartToCloseTimeout(Duration.ofSeconds(5))
                // One attempt: the question is "is someone polling now", not "eventually".
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                .build());
    try {
      return new TaskQueueProbeResult(request.taskQueue(), true, ping.ping());
    } catch (ActivityFailure nobodyAnswered) {
      return new TaskQueueProbeResult(request.taskQueue(), false, null);
    }
  }
}
