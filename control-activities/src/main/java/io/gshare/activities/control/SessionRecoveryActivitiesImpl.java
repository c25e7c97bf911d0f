package io.gshare.activities.control;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.gshare.core.policy.Policy;
import io.gshare.core.policy.PolicyRepository;
import io.gshare.core.session.SessionRepository;
import io.gshare.core.session.SessionRepository.Unfinished;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.session.GpuPlacement;
import io.gshare.workflows.session.SessionRecoveryActivities;
import io.gshare.workflows.session.SessionRecoveryPass;
import io.gshare.workflows.session.SessionSnapshot;
import io.gshare.workflows.session.SessionSpec;
import io.gshare.workflows.session.SessionStart;
import io.gshare.workflows.session.SessionState;
import io.gshare.workflows.session.SessionView;
import io.temporal.activity.Activity;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowUpdateStage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Session recovery ({@code SessionRecovery}, run by the Schedule {@code session-recovery}): gives every unfinished
 * session whose workflow Temporal no longer has (the dev server forgets everything on restart) a new workflow built
 * from its Postgres row, so it converges: a running session keeps (or regains) its pod, a paused one waits, one caught
 * mid-termination ends.
 *
 * <p>It lives here, with the other control activities, rather than in the api: what it needs of the api's session
 * code, the session's spec and the start of its workflow, moved here ({@link SessionStarts}, which the api's create
 * uses too), and the rest is core's ({@link SessionRepository}, {@link PolicyRepository}) and the Temporal client's.
 * So the api holds no activity implementation, and {@code ControlActivitiesArchitectureTest} holds this one to the
 * control queue like every other.
 */
@ActivitiesOn(taskQueue = TaskQueues.CONTROL)
public class SessionRecoveryActivitiesImpl implements SessionRecoveryActivities {

  private static final Logger log = LoggerFactory.getLogger(SessionRecoveryActivitiesImpl.class);

  private final SessionRepository rows;
  private final PolicyRepository policies;
  private final SessionStarts starts;
  private final WorkflowClient client;

  public SessionRecoveryActivitiesImpl(SessionRepository rows, PolicyRepository policies, SessionStarts starts,
      WorkflowClient client) {
    this.rows = rows;
    this.policies = policies;
    this.starts = starts;
    this.client = client;
  }

  @Override
  public SessionRecoveryPass recoverLostSessions() {
    List<Unfinished> unfinished = rows.unfinished();
    List<String> restarted = new ArrayList<>();
    List<String> ended = new ArrayList<>();
    List<String> unreachable = new ArrayList<>();
    for (Unfinished row : unfinished) {
      Activity.getExecutionContext().heartbeat(row.id());
      try {
        switch (recoverIfLost(row)) {
          case RESTARTED -> restarted.add(row.id());
          case ENDED -> ended.add(row.id());
          case LEFT -> { }
        }
      } catch (RuntimeException e) {
        unreachable.add(row.id());
        log.error("could not recover session {} (tried again at the next pass): {}", row.id(), e.toString());
      }
    }
    if (!restarted.isEmpty() || !ended.isEmpty()) {
      log.warn("recovered {} session(s) whose workflows Temporal no longer had; ended {} lost before placement",
          restarted.size(), ended.size());
    }
    return new SessionRecoveryPass(unfinished.size(), restarted, ended, unreachable);
  }

  enum Outcome {
    /** Its workflow runs, or its row changed since the pass read it (the next pass looks again). */
    LEFT,
    RESTARTED,
    ENDED
  }

  Outcome recoverIfLost(Unfinished row) {
    if (running(WorkflowIds.session(row.id()))) {
      return Outcome.LEFT;
    }
    // A workflow writes its session's last state before it closes: one that ended since the list was read is ended
    // in Postgres now, and is not started again.
    Optional<SessionState> now = rows.stateOf(row.id());
    if (now.isEmpty() || now.get() != row.state()) {
      return Outcome.LEFT;
    }
    return recover(row);
  }

  /** Rebuilds and starts the workflow of one session from its row. */
  private Outcome recover(Unfinished row) {
    GpuPlacement placement = rows.heldPlacementOf(row.id(), row.clusterId(), row.mode(), row.model()).orElse(null);
    SessionState state = switch (row.state()) {
      case RUNNING, PAUSING -> placement == null ? SessionState.PAUSED : SessionState.RUNNING;
      case PAUSED, TERMINATING -> SessionState.PAUSED;
      case PENDING, CREATING, RESUMING -> placement == null ? null : SessionState.CREATING;
      case TERMINATED, FAILED -> null; // not selected: ended sessions need no workflow
    };
    if (state == null || row.clusterId() == null) {
      rows.markFailed(row.id(), "lost before it was placed (the control plane restarted)");
      log.warn("session {} ({}) was lost before it was placed: ended as failed", row.id(), row.state().wireName());
      return Outcome.ENDED;
    }
    log.warn("session {} ({}) has no workflow: starting one from Postgres", row.id(), row.state().wireName());
    Policy policy = policies.effective(row.teamId());
    SessionSpec spec = starts.specOf(row.id(), row.userId(), row.clusterId(), row.imageReference(), row.port(),
        row.path(), row.domain(), policy,
        row.volumeId() == null ? null : starts.volumeOf(row.volumeId(), row.clusterId()), row.checkpointRegistry());
    WorkflowExecution run = starts.start(new SessionStart(spec, new SessionSnapshot(state,
        state == SessionState.PAUSED ? null : placement,
        state == SessionState.RUNNING ? row.runUsed() : Duration.ZERO, row.checkpoint())));
    if (row.state() == SessionState.TERMINATING) {
      order(run, "terminate");
    } else if (row.state() == SessionState.PAUSING && state == SessionState.RUNNING) {
      order(run, "pause");
    }
    return Outcome.RESTARTED;
  }

  /**
   * Hands the restarted workflow the command its session was carrying out ({@code SessionWorkflow}'s update of that
   * name), once per run, and waits only for the workflow to accept it: it carries it out on its own.
   */
  private void order(WorkflowExecution run, String update) {
    client.newUntypedWorkflowStub(run.getWorkflowId(), Optional.of(run.getRunId()), Optional.empty()).startUpdate(
        UpdateOptions.newBuilder(SessionView.class).setUpdateName(update)
            .setUpdateId("recovery-" + update + "-" + run.getRunId())
            .setWaitForStage(WorkflowUpdateStage.ACCEPTED).build());
  }

  private boolean running(String workflowId) {
    try {
      var response = client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
          DescribeWorkflowExecutionRequest.newBuilder()
              .setNamespace(client.getOptions().getNamespace())
              .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId).build())
              .build());
      return response.getWorkflowExecutionInfo().getStatus()
          == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return false;
      }
      throw e;
    }
  }
}
