package io.gshare.activities.control;

import io.gshare.core.operation.OperationRepository;
import io.gshare.core.session.SessionRepository;
import io.gshare.workflows.cluster.ClusterRerouteActivities;
import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.session.SessionReroute;
import io.gshare.workflows.session.SessionRerouteOutcome;
import io.gshare.workflows.session.SessionWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowUpdateException;
import java.time.Duration;
import java.util.List;

/** A cluster's live sessions from Postgres, and the reroute sent to each as an update of its own workflow. */
@ActivitiesOn(taskQueue = TaskQueues.CONTROL)
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
    try {
      return SessionUpdates.sendAndAwait(client, sessionId, SessionWorkflow.REROUTE_UPDATE, "reroute", change,
          SessionRerouteOutcome.class, heartbeatEvery);
    } catch (WorkflowNotFoundException gone) {
      return new SessionRerouteOutcome(sessionId, null, null, "its workflow has ended: nothing to move", true);
    } catch (WorkflowUpdateException refused) {
      return new SessionRerouteOutcome(sessionId, null, null, "its workflow refused the reroute: "
          + (refused.getCause() == null ? refused.getMessage() : refused.getCause().getMessage()), false);
    }
  }

  @Override
  public void recordOperation(OperationProgress progress) {
    operations.record(progress);
  }
}
