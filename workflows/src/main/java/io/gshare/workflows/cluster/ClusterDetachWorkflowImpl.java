package io.gshare.workflows.cluster;

import static io.gshare.workflows.common.Failures.rootMessage;

import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.Progress;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;

public class ClusterDetachWorkflowImpl implements ClusterDetachWorkflow {

  static final String IDLE = "check nothing runs on the cluster";
  static final String REMOVE = "remove the worker and its Secret";
  static final String INVENTORY = "delete node and GPU rows";
  static final String DETACHED = "mark detached";

  private final ClusterRemoteActivities remote = Workflow.newActivityStub(ClusterRemoteActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(60))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(2)).setBackoffCoefficient(2)
              .setMaximumAttempts(4).build())
          .build());
  private final ClusterStateActivities state = Workflow.newActivityStub(ClusterStateActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
              .setMaximumInterval(Duration.ofSeconds(10)).setMaximumAttempts(10).build())
          .build());

  private Progress progress;

  @Override
  public OperationProgress detach(String clusterId) {
    progress = new Progress(WorkflowIds.clusterDetach(clusterId), "cluster.detach", clusterId,
        List.of(IDLE, REMOVE, INVENTORY, DETACHED));
    progress.start(IDLE);
    List<String> busy = state.busyReasons(clusterId);
    if (!busy.isEmpty()) {
      throw fail("detach refused: " + String.join("; ", busy) + ". End or pause them first", "ClusterBusy");
    }
    progress.done(IDLE, null);
    state.markStatus(clusterId, ClusterStatus.DETACHING, null);

    progress.start(REMOVE);
    try {
      remote.removeWorker(clusterId);
      progress.done(REMOVE, null);
    } catch (ActivityFailure e) {
      // A dead cluster must still be detachable: say what is left behind and go on.
      progress.done(REMOVE, "could not reach the cluster (" + rootMessage(e)
          + "): delete namespace gshare-system there by hand");
    }

    try {
      progress.start(INVENTORY);
      state.deleteInventory(clusterId);
      progress.done(INVENTORY, null);

      progress.start(DETACHED);
      state.markStatus(clusterId, ClusterStatus.DETACHED, null);
      progress.done(DETACHED, null);
    } catch (ActivityFailure e) {
      // Not left "detaching" for good: the cluster says why, and detaching again converges.
      String why = "detach failed: " + rootMessage(e) + "; detach again";
      state.markStatus(clusterId, ClusterStatus.FAILED, why);
      throw fail(why, "ClusterDetachFailed");
    }
    progress.complete();
    state.recordOperation(progress.snapshot());
    return progress.snapshot();
  }

  /** Records the operation as failed and gives the failure to throw. */
  private ApplicationFailure fail(String why, String type) {
    progress.fail(why);
    state.recordOperation(progress.snapshot());
    return ApplicationFailure.newNonRetryableFailure(why, type);
  }

  @Override
  public OperationProgress progress() {
    return progress == null ? null : progress.snapshot();
  }
}
