package io.gshare.workflows.session;

import io.gshare.workflows.common.ExternalSignals;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import org.slf4j.Logger;

public class IdleReaperWorkflowImpl implements IdleReaperWorkflow {

  private static final Logger log = Workflow.getLogger(IdleReaperWorkflowImpl.class);

  private final IdleReaperActivities reaper = Workflow.newActivityStub(IdleReaperActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(50))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(2))
              .setMaximumAttempts(3).build())
          .build());

  @Override
  public IdleSweep sweep() {
    IdleSweep sweep = reaper.sweepIdleSessions();
    for (IdleSweep.Pause pause : sweep.pauses()) {
      SessionWorkflow session = Workflow.newExternalWorkflowStub(SessionWorkflow.class,
          WorkflowIds.session(pause.sessionId()));
      if (!ExternalSignals.signal(() -> session.idle(pause.reason()))) {
        // The session ended meanwhile (or its execution is being recovered): the next sweep finds it again if
        // it is still running.
        log.info("session {} could not be told to pause: its workflow is not running", pause.sessionId());
      }
    }
    return sweep;
  }
}
