package io.gshare.activities.control;

import io.gshare.core.node.NodeDrains;
import io.gshare.core.operation.OperationRepository;
import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.node.NodeDrainActivities;
import io.gshare.workflows.session.SessionDrainOrder;
import io.gshare.workflows.session.SessionDrainOutcome;
import io.gshare.workflows.session.SessionWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowUpdateException;
import java.time.Duration;
import java.util.List;

/** A node drain's Postgres state, and its orders to sessions sent as updates to their own workflows. */
@ActivitiesOn(taskQueue = TaskQueues.CONTROL)
public class NodeDrainActivitiesImpl implements NodeDrainActivities {

  private final NodeDrains drains;
  private final OperationRepository operations;
  private final WorkflowClient client;
  private final Duration heartbeatEvery;

  public NodeDrainActivitiesImpl(NodeDrains drains, OperationRepository operations, WorkflowClient client,
      Duration heartbeatEvery) {
    this.drains = drains;
    this.operations = operations;
    this.client = client;
    this.heartbeatEvery = heartbeatEvery;
  }

  public NodeDrainActivitiesImpl(NodeDrains drains, OperationRepository operations, WorkflowClient client) {
    this(drains, operations, client, Duration.ofSeconds(10));
  }

  @Override
  public void markDraining(String nodeId, String reason) {
    drains.markDraining(nodeId, reason);
  }

  @Override
  public List<String> sessionsOn(String nodeId) {
    return drains.sessionsOn(nodeId);
  }

  @Override
  public SessionDrainOutcome drainSession(String sessionId, SessionDrainOrder order) {
    try {
      return SessionUpdates.sendAndAwait(client, sessionId, SessionWorkflow.DRAIN_UPDATE, "drain", order,
          SessionDrainOutcome.class, heartbeatEvery);
    } catch (WorkflowNotFoundException gone) {
      // No workflow runs the session any more: it ended, and holds nothing on the node.
      return new SessionDrainOutcome(sessionId, null, null, null, null, "its workflow has ended: nothing to do");
    } catch (WorkflowUpdateException refused) {
      return new SessionDrainOutcome(sessionId, null, order.hostname(), null, null,
          "its workflow refused the order: " + (refused.getCause() == null ? refused.getMessage()
              : refused.getCause().getMessage()));
    }
  }

  @Override
  public void markDrained(String nodeId) {
    drains.markDrained(nodeId);
  }

  @Override
  public void clearDrain(String nodeId) {
    drains.clear(nodeId);
  }

  @Override
  public List<String> cordonedDevices(String nodeId) {
    return drains.cordonedDevices(nodeId);
  }

  @Override
  public void recordOperation(OperationProgress progress) {
    operations.record(progress);
  }
}
