package io.gshare.workflows.session;

import io.gshare.workflows.common.ExternalSignals;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.SignalExternalWorkflowException;
import io.temporal.workflow.Workflow;
import java.time.Duration;

public class MeteringWorkflowImpl implements MeteringWorkflow {

  /** Windows charged per statement (one transaction each): 10,000 open windows take 4 full batches and an empty one. */
  static final int BATCH = 2500;
  /** Workflow.getVersion change id: a NOT_FOUND signal failure skips the session instead of failing the sweep. */
  static final String SKIP_ENDED_SESSIONS = "skip-ended-sessions";

  private final MeteringActivities metering = Workflow.newActivityStub(MeteringActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(50))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(2))
              .setMaximumAttempts(3).build())
          .build());

  @Override
  public int sweep() {
    MeteringResult result = metering.chargeOpenWindows(BATCH);
    for (String sessionId : result.exhausted()) {
      try {
        Workflow.newUntypedExternalWorkflowStub(WorkflowIds.session(sessionId)).signal("creditsExhausted");
      } catch (SignalExternalWorkflowException | ApplicationFailure failed) {
        // A session that ended meanwhile (or whose execution is being recovered) is skipped: its next sweep finds
        // it again if it is still open. The SDK reports that as an ApplicationFailure NOT_FOUND, which failed the
        // whole sweep before SKIP_ENDED_SESSIONS; a history recorded then replays as it ran.
        if (!ExternalSignals.isGone(failed) || (failed instanceof ApplicationFailure
            && Workflow.getVersion(SKIP_ENDED_SESSIONS, Workflow.DEFAULT_VERSION, 1) == Workflow.DEFAULT_VERSION)) {
          throw failed;
        }
      }
    }
    return result.charged();
  }
}
