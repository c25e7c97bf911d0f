package io.gshare.activities.control;

import io.gshare.core.operation.OperationRepository;
import io.gshare.core.session.SessionRepository;
import io.gshare.workflows.cluster.ClusterRerouteActivities;
import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.session.SessionReroute;
import io.gshare.workflows.session.SessionRerouteOutcome;
import io.gshare.workflows.session.SessionWorkflow;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.client.WorkflowUpdateHandle;
import io.temporal.client.WorkflowUpdateStage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A cluster's live sessions from Postgres, and the reroute sent to each as an update of its own workflow. */
public class ClusterRerouteActivitiesImpl implements ClusterRerouteActivities {

  private final SessionRepository sessions;
  private final OperationRepository operations;
  private final WorkflowClient client;
  private final Duration heartbeatEvery;

  public ClusterRerouteActivitiesImpl(SessionRepository sessions, OperationRepository operations, WorkflowClient client,
      Duration heartbeatEvery) {
    this.sessions = sessions;
    this.operations = operations;
    this.client = client;
    this.heartbeatEvery = heartbeatEvery;
  }

  public ClusterRerouteActivitiesImpl(SessionRepository sessions, OperationRepository operations, WorkflowClient client) {
    this(sessions, operations, client, Duration.ofSeconds(10));
  }

  @Override
  public List<String> liveSessions(String clusterId) {
    return sessions.unendedOn(clusterId);
  }

  @Override
  public SessionRerouteOutcome rerouteSession(String sessionId, SessionReroute change) {
    ActivityExecutionContext context = Activity.getExecutionContext();
    // One update id per reroute run and session: a retried attempt reattaches to the update already sent.
    String updateId = "reroute-" + context.getInfo().getWorkflowRunId() + "-" + sessionId;
    try {
      WorkflowUpdateHandle<SessionRerouteOutcome> handle = client.newUntypedWorkflowStub(WorkflowIds.session(sessionId))
          .startUpdate(UpdateOptions.newBuilder(SessionRerouteOutcome.class).setUpdateName(SessionWorkflow.REROUTE_UPDATE)
              .setUpdateId(updateId).setWaitForStage(WorkflowUpdateStage.ACCEPTED).build(), change);
      CompletableFuture<SessionRerouteOutcome> result = handle.getResultAsync();
      while (true) {
        try {
          return result.get(heartbeatEvery.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException stillRunning) {
          context.heartbeat(sessionId);
        }
      }
    } catch (WorkflowNotFoundException gone) {
      return new SessionRerouteOutcome(sessionId, null, null, "its workflow has ended: nothing to move", true);
    } catch (WorkflowUpdateException refused) {
      return new SessionRerouteOutcome(sessionId, null, null, "its workflow refused the reroute: "
          + (refused.getCause() == null ? refused.getMessage() : refused.getCause().getMessage()), false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Activity.wrap(e);
    } catch (ExecutionException e) {
      throw Activity.wrap(e.getCause() instanceof Exception cause ? cause : e);
    }
  }

  @Override
  public void recordOperation(OperationProgress progress) {
    operations.record(progress);
  }
}
