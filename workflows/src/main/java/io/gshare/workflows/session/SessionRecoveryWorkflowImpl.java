package io.gshare.workflows.session;

import io.gshare.workflows.common.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

public class SessionRecoveryWorkflowImpl implements SessionRecoveryWorkflow {

  /**
   * One pass describes each unfinished session's workflow (milliseconds each) and starts the lost ones; it heartbeats
   * per session, so a worker gone mid-pass is noticed within a minute and the pass retried.
   */
  private final SessionRecoveryActivities recovery = Workflow.newActivityStub(SessionRecoveryActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofMinutes(10))
          .setHeartbeatTimeout(Duration.ofMinutes(1))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(2))
              .setMaximumAttempts(3).build())
          .build());

  @Override
  public SessionRecoveryPass recover() {
    return recovery.recoverLostSessions();
  }
}
