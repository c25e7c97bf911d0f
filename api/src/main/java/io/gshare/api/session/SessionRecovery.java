package io.gshare.api.session;

import io.gshare.core.policy.Policy;
import io.gshare.core.policy.PolicyRepository;
import io.gshare.api.temporal.TemporalProperties;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.session.GpuPlacement;
import io.gshare.workflows.session.SessionSnapshot;
import io.gshare.workflows.session.SessionSpec;
import io.gshare.workflows.session.SessionStart;
import io.gshare.workflows.session.SessionState;
import io.gshare.workflows.session.SessionWorkflow;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
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
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * At start, gives every unfinished session whose workflow Temporal no longer has (the embedded dev
 * server forgets everything on restart) a new workflow built from its Postgres row, so it converges:
 * a running session keeps (or regains) its pod, a paused one waits, one caught mid-termination ends.
 */
@Component
@ConditionalOnProperty(prefix = "gshare.worker", name = "enabled", havingValue = "true", matchIfMissing = true)
public class SessionRecovery {

  private static final Logger log = LoggerFactory.getLogger(SessionRecovery.class);

  private final JdbcClient jdbc;
  private final WorkflowServiceStubs stubs;
  private final WorkflowClient client;
  private final TemporalProperties temporal;
  private final SessionService sessions;
  private final PolicyRepository policies;

  SessionRecovery(JdbcClient jdbc, WorkflowServiceStubs stubs, WorkflowClient client, TemporalProperties temporal,
      SessionService sessions, PolicyRepository policies) {
    this.jdbc = jdbc;
    this.stubs = stubs;
    this.client = client;
    this.temporal = temporal;
    this.sessions = sessions;
    this.policies = policies;
  }

  record Row(String id, String userId, String clusterId, String state, String imageReference, int port, String path,
      String domain, String checkpoint, String mode, String model, String teamId, String volumeId,
      String checkpointRegistry, Duration runUsed) {}

  /** True until one pass recovered every session it looked at (Temporal may not be up when the api is). */
  private volatile boolean unfinishedBusiness = true;

  @EventListener(ApplicationReadyEvent.class)
  void onReady() {
    recoverAll();
  }

  /** Tries again, every minute, while the last pass could not reach every session's workflow. */
  @Scheduled(fixedDelayString = "${gshare.sessions.recovery-retry-interval:60s}",
      initialDelayString = "${gshare.sessions.recovery-retry-interval:60s}")
  void retryWhileUnfinished() {
    if (unfinishedBusiness) {
      recoverAll();
    }
  }

  public void recoverAll() {
    List<Row> unfinished = jdbc.sql("""
        select s.id, s.user_id, s.cluster_id, s.state, s.image_reference, coalesce(i.port, 8888), coalesce(i.path, '/'),
               c.session_domain, s.checkpoint_image, s.mode, s.gpu_model, u.team_id, s.volume_id,
               c.checkpoint_registry,
               -- the run so far: its billing window opened when it started running
               (select extract(epoch from now() - w.opened_at)::bigint from billing_windows w
                 where w.session_id = s.id and w.closed_at is null)
          from sessions s join users u on u.id = s.user_id
          left join images i on i.id = s.image_id left join clusters c on c.id = s.cluster_id
         where s.state not in ('terminated', 'failed')
        """)
        .query((rs, n) -> new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
            rs.getInt(6), rs.getString(7), rs.getString(8), rs.getString(9), rs.getString(10), rs.getString(11),
            rs.getString(12), rs.getString(13), rs.getString(14), Duration.ofSeconds(Math.max(0, rs.getLong(15)))))
        .list();
    int recovered = 0;
    int failed = 0;
    for (Row row : unfinished) {
      try {
        if (!running(WorkflowIds.session(row.id()))) {
          recover(row);
          recovered++;
        }
      } catch (RuntimeException e) {
        failed++;
        log.error("could not recover session {} (tried again in a minute): {}", row.id(), e.toString());
      }
    }
    unfinishedBusiness = failed > 0;
    if (recovered > 0) {
      log.warn("recovered {} session(s) whose workflows Temporal no longer had", recovered);
    }
  }

  /** Rebuilds and starts the workflow of one session from its row. */
  public void recover(Row row) {
    GpuPlacement placement = placementOf(row);
    Policy policy = policies.effective(row.teamId());
    SessionState state = switch (SessionState.fromWire(row.state())) {
      case RUNNING, PAUSING -> placement == null ? SessionState.PAUSED : SessionState.RUNNING;
      case PAUSED, TERMINATING -> SessionState.PAUSED;
      case PENDING, CREATING, RESUMING -> placement == null ? null : SessionState.CREATING;
      case TERMINATED, FAILED -> null; // not selected: ended sessions need no workflow
    };
    if (state == null || row.clusterId() == null) {
      jdbc.sql("update sessions set state = 'failed', state_reason = :r, ended_at = now() where id = :id")
          .param("id", row.id()).param("r", "lost before it was placed (the control plane restarted)").update();
      return;
    }
    log.warn("session {} ({}) has no workflow: starting one from Postgres", row.id(), row.state());
    SessionSpec spec = sessions.specOf(row.id(), row.userId(), row.clusterId(), row.imageReference(), row.port(), row.path(),
        row.domain(), policy, row.volumeId() == null ? null : sessions.volumeOf(row.volumeId()), row.checkpointRegistry());
    sessions.startWorkflow(new SessionStart(spec, new SessionSnapshot(state,
        state == SessionState.PAUSED ? null : placement,
        state == SessionState.RUNNING ? row.runUsed() : Duration.ZERO, row.checkpoint())));
    SessionWorkflow workflow = client.newWorkflowStub(SessionWorkflow.class, WorkflowIds.session(row.id()));
    if (SessionState.TERMINATING.wireName().equals(row.state())) {
      workflow.terminate();
    } else if (SessionState.PAUSING.wireName().equals(row.state()) && state == SessionState.RUNNING) {
      workflow.pause();
    }
  }

  private GpuPlacement placementOf(Row row) {
    record Held(String uuid, String nodeId, String hostname, Integer mem, Integer cores, boolean lossless) {}
    List<Held> held = jdbc.sql("""
        select a.gpu_uuid, a.node_id, n.hostname, a.gpumem_mib, a.gpucores_percent, coalesce(n.lossless_pause, false)
          from allocations a left join nodes n on n.id = a.node_id
         where a.session_id = :s and a.released_at is null order by a.gpu_uuid
        """).param("s", row.id())
        .query((rs, n) -> new Held(rs.getString(1), rs.getString(2), rs.getString(3), (Integer) rs.getObject(4),
            (Integer) rs.getObject(5), rs.getBoolean(6)))
        .list();
    if (held.isEmpty() || held.get(0).nodeId() == null) {
      return null;
    }
    Held first = held.get(0);
    return new GpuPlacement(row.clusterId(), first.nodeId(), first.hostname(), row.mode(), row.model(),
        held.stream().map(Held::uuid).toList(), first.mem(), first.cores(), first.lossless());
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
