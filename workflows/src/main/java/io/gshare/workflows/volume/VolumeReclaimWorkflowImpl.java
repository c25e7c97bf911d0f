package io.gshare.workflows.volume;

import static io.gshare.workflows.common.Failures.rootMessage;

import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.Progress;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The grace period is one durable timer (a restore signal ends the wait); the claims are deleted one
 * cluster at a time, each attempt bounded, so a claim that will not go stops the reclaim with its reason
 * instead of retrying for ever; an admin's retry signal starts the claims step again.
 */
public class VolumeReclaimWorkflowImpl implements VolumeReclaimWorkflow {

  static final String GRACE = "wait out the grace period";
  static final String CLAIMS = "delete the claims on every cluster";
  static final String RECLAIMED = "mark reclaimed";
  /** Tries per claim before the reclaim stops for an admin: about 10 minutes with the backoff below. */
  static final int CLAIM_ATTEMPTS = 5;

  static final RetryOptions CLAIM_RETRIES = RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(15))
      .setBackoffCoefficient(2).setMaximumInterval(Duration.ofMinutes(3)).setMaximumAttempts(CLAIM_ATTEMPTS).build();

  private final VolumeReclaimActivities control = Workflow.newActivityStub(VolumeReclaimActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
              .setMaximumInterval(Duration.ofSeconds(30)).build())
          .build());

  private Progress progress;
  private boolean restored;
  private boolean retryRequested;

  @Override
  public OperationProgress reclaim(ReclaimRequest request) {
    String volumeId = request.volumeId();
    progress = new Progress(WorkflowIds.volumeReclaim(volumeId), "volume.reclaim", volumeId, List.of(GRACE, CLAIMS, RECLAIMED));
    progress.start(GRACE);
    Workflow.await(Duration.ofSeconds(request.graceSeconds()), () -> restored);
    if (restored || !control.begin(volumeId)) {
      progress.done(GRACE, "restored within the grace period: nothing deleted");
      progress.complete();
      control.recordOperation(progress.snapshot());
      return progress.snapshot();
    }
    progress.done(GRACE, "not restored within " + Duration.ofSeconds(request.graceSeconds()));

    while (true) {
      progress.start(CLAIMS);
      List<String> stuck = new ArrayList<>();
      List<String> notes = new ArrayList<>();
      for (ClaimTarget claim : control.claimsOf(volumeId)) {
        if (!claim.clusterAttached()) {
          // No worker acts on a detached cluster: say what may be left there, do not wait on it.
          notes.add(claim.pvcName() + " on detached cluster " + claim.clusterId() + ": not deleted (delete it there by hand)");
          continue;
        }
        try {
          clusterStub(claim.clusterId()).deleteClaim(claim.pvcName());
          notes.add(claim.pvcName() + " deleted on " + claim.clusterId());
        } catch (ActivityFailure e) {
          stuck.add(claim.pvcName() + " on " + claim.clusterId() + ": " + rootMessage(e));
        }
      }
      if (stuck.isEmpty()) {
        progress.done(CLAIMS, notes.isEmpty() ? "the volume had no claim" : String.join("; ", notes));
        break;
      }
      String why = "claims that would not go after " + CLAIM_ATTEMPTS + " tries: " + String.join("; ", stuck)
          + ". End what mounts them, then retry (POST /api/v1/volumes/" + volumeId + "/reclaim/retry)";
      retryRequested = false;
      progress.fail(why);
      control.recordOperation(progress.snapshot());
      control.alert(volumeId, why);
      Workflow.await(() -> retryRequested);
      progress = new Progress(WorkflowIds.volumeReclaim(volumeId), "volume.reclaim", volumeId, List.of(GRACE, CLAIMS, RECLAIMED));
      progress.done(GRACE, "retried by an admin");
      control.recordOperation(progress.snapshot());
    }

    progress.start(RECLAIMED);
    control.markReclaimed(volumeId);
    progress.done(RECLAIMED, "the volume's row stays as history");
    progress.complete();
    control.recordOperation(progress.snapshot());
    return progress.snapshot();
  }

  /** Each attempt deletes and waits about a minute (heartbeating); then backoff, {@value #CLAIM_ATTEMPTS} tries in all. */
  private static VolumeClusterActivities clusterStub(String clusterId) {
    return Workflow.newActivityStub(VolumeClusterActivities.class, ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.cluster(clusterId))
        .setStartToCloseTimeout(Duration.ofMinutes(2))
        .setHeartbeatTimeout(Duration.ofSeconds(30))
        .setScheduleToCloseTimeout(Duration.ofMinutes(30))
        .setRetryOptions(CLAIM_RETRIES)
        .build());
  }

  @Override
  public void restore() {
    restored = true;
  }

  @Override
  public void retry() {
    retryRequested = true;
  }

  @Override
  public OperationProgress progress() {
    return progress == null ? null : progress.snapshot();
  }
}
