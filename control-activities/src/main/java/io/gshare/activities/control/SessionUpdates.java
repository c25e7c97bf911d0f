package io.gshare.activities.control;

import io.gshare.workflows.common.WorkflowIds;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowUpdateHandle;
import io.temporal.client.WorkflowUpdateStage;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An update sent to a session's own workflow from a control activity, awaited while the activity heartbeats. The
 * update id is one per calling workflow run and session, so a retried attempt reattaches to the update already sent
 * instead of sending a second. {@code WorkflowNotFoundException} (the session's workflow ended) and
 * {@code WorkflowUpdateException} (it refused) reach the caller as they are.
 */
final class SessionUpdates {

  private SessionUpdates() {}

  static <R> R sendAndAwait(WorkflowClient client, String sessionId, String updateName, String idPrefix, Object argument,
      Class<R> resultType, Duration heartbeatEvery) {
    ActivityExecutionContext context = Activity.getExecutionContext();
    String updateId = idPrefix + "-" + context.getInfo().getWorkflowRunId() + "-" + sessionId;
    try {
      WorkflowUpdateHandle<R> handle = client.newUntypedWorkflowStub(WorkflowIds.session(sessionId)).startUpdate(
          UpdateOptions.newBuilder(resultType).setUpdateName(updateName).setUpdateId(updateId)
              .setWaitForStage(WorkflowUpdateStage.ACCEPTED).build(), argument);
      CompletableFuture<R> result = handle.getResultAsync();
      while (true) {
        try {
          return result.get(heartbeatEvery.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException stillRunning) {
          context.heartbeat(sessionId);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Activity.wrap(e);
    } catch (ExecutionException e) {
      throw Activity.wrap(e.getCause() instanceof Exception cause ? cause : e);
    }
  }
}
