package io.gshare.api.session;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.gshare.api.temporal.TemporalProperties;
import io.gshare.core.policy.Policy;
import io.gshare.core.policy.PolicyRepository;
import io.gshare.core.session.SessionRepository;
import io.gshare.core.session.SessionRepository.Unfinished;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.session.GpuPlacement;
import io.gshare.workflows.session.SessionSnapshot;
import io.gshare.workflows.session.SessionSpec;
import io.gshare.workflows.session.SessionStart;
import io.gshare.workflows.session.SessionState;
import io.gshare.workflows.session.SessionWorkflow;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * At start, gives every unfinished session whose workflow Temporal no longer has (the embedded dev
 * server forgets everything on restart) a new workflow built from its Postgres row, so it converges:
 * a running session keeps (or regains) its pod, a paused one waits, one caught mid-termination ends.
 */
@Component
@ConditionalOnProperty(prefix = "gshare.worker", name = "enabled", havingValue = "true", matchIfMissing = true)
public class SessionRecovery implements SchedulingConfigurer {

  private static final Logger log = LoggerFactory.getLogger(SessionRecovery.class);

  private final SessionRepository rows;
  private final WorkflowServiceStubs stubs;
  private final WorkflowClient client;
  private final TemporalProperties temporal;
  private final SessionService sessions;
  private final PolicyRepository policies;
  private final SessionProperties properties;

  SessionRecovery(SessionRepository rows, WorkflowServiceStubs stubs, WorkflowClient client, TemporalProperties temporal,
      SessionService sessions, PolicyRepository policies, SessionProperties properties) {
    this.rows = rows;
    this.stubs = stubs;
    this.client = client;
    this.temporal = temporal;
    this.sessions = sessions;
    this.policies = policies;
    this.properties = properties;
  }

  /** True until one pass recovered every session it looked at (Temporal may not be up when the api is). */
  private volatile boolean unfinishedBusiness = true;

  @EventListener(ApplicationReadyEvent.class)
  void onReady() {
    recoverAll();
  }

  /** Every {@code gshare.sessions.recovery-retry-interval} (a minute), first after one interval. */
  @Override
  public void configureTasks(ScheduledTaskRegistrar tasks) {
    Duration every = properties.recoveryRetryInterval();
    tasks.addFixedDelayTask(new FixedDelayTask(this::retryWhileUnfinished, every, every));
  }

  /** Tries again while the last pass could not reach every session's workflow. */
  void retryWhileUnfinished() {
    if (unfinishedBusiness) {
      recoverAll();
    }
  }

  public void recoverAll() {
    List<Unfinished> unfinished = rows.unfinished();
    int recovered = 0;
    int failed = 0;
    for (Unfinished row : unfinished) {
      try {
        if (!running(WorkflowIds.session(row.id()))) {
          recover(row);
          recovered++;
        }
      } catch (RuntimeException e) {
        failed++;
        log.error("could not recover session {} (tried again in {}): {}", row.id(), properties.recoveryRetryInterval(),
            e.toString());
      }
    }
    unfinishedBusiness = failed > 0;
    if (recovered > 0) {
      log.warn("recovered {} session(s) whose workflows Temporal no longer had", recovered);
    }
  }

  /** Rebuilds and starts the workflow of one session from its row. */
  public void recover(Unfinished row) {
    GpuPlacement placement = placementOf(row);
    Policy policy = policies.effective(row.teamId());
    SessionState state = switch (row.state()) {
      case RUNNING, PAUSING -> placement == null ? SessionState.PAUSED : SessionState.RUNNING;
      case PAUSED, TERMINATING -> SessionState.PAUSED;
      case PENDING, CREATING, RESUMING -> placement == null ? null : SessionState.CREATING;
      case TERMINATED, FAILED -> null; // not selected: ended sessions need no workflow
    };
    if (state == null || row.clusterId() == null) {
      rows.markFailed(row.id(), "lost before it was placed (the control plane restarted)");
      return;
    }
    log.warn("session {} ({}) has no workflow: starting one from Postgres", row.id(), row.state().wireName());
    SessionSpec spec = sessions.specOf(row.id(), row.userId(), row.clusterId(), row.imageReference(), row.port(), row.path(),
        row.domain(), policy, row.volumeId() == null ? null : sessions.volumeOf(row.volumeId(), row.clusterId()), row.checkpointRegistry());
    sessions.startWorkflow(new SessionStart(spec, new SessionSnapshot(state,
        state == SessionState.PAUSED ? null : placement,
        state == SessionState.RUNNING ? row.runUsed() : Duration.ZERO, row.checkpoint())));
    SessionWorkflow workflow = client.newWorkflowStub(SessionWorkflow.class, WorkflowIds.session(row.id()));
    if (row.state() == SessionState.TERMINATING) {
      workflow.terminate();
    } else if (row.state() == SessionState.PAUSING && state == SessionState.RUNNING) {
      workflow.pause();
    }
  }

  private GpuPlacement placementOf(Unfinished row) {
    return rows.heldPlacementOf(row.id(), row.clusterId(), row.mode(), row.model()).orElse(null);
  }

  private boolean running(String workflowId) {
    try {
      var response = stubs.blockingStub().describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder()
          .setNamespace(temporal.namespace())
          .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId).build())
          .build());
      return response.getWorkflowExecutionInfo().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return false;
      }
      throw e;
    }
  }
}
