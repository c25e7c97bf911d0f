package io.gshare.workflows.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.ArgumentMatchers.contains;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.atLeast;
import static org.mockito.Mockito.doNothing;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.OperationStatus;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.TestWorkflowExtension;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class VolumeReclaimWorkflowTest {

  private static final String VOLUME = "vol_1";
  private static final long DAY = Duration.ofHours(24).toSeconds();

  @RegisterExtension
  static final TestWorkflowExtension testWorkflow = TestWorkflowExtension.newBuilder()
      .registerWorkflowImplementationTypes(VolumeReclaimWorkflowImpl.class)
      .setDoNotStart(true)
      .build();

  private VolumeReclaimActivities control;
  private VolumeClusterActivities clusterA;
  private VolumeClusterActivities clusterB;

  @BeforeEach
  void mocks() {
    control = mock(VolumeReclaimActivities.class, withSettings().withoutAnnotations());
    clusterA = mock(VolumeClusterActivities.class, withSettings().withoutAnnotations());
    clusterB = mock(VolumeClusterActivities.class, withSettings().withoutAnnotations());
    when(control.begin(VOLUME)).thenReturn(true);
    when(control.claimsOf(VOLUME)).thenReturn(List.of(new ClaimTarget("clu_a", "gshare-vol-1", true),
        new ClaimTarget("clu_b", "gshare-vol-1", true), new ClaimTarget("clu_gone", "gshare-vol-1", false)));
  }

  private VolumeReclaimWorkflow start(TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    env.newWorker(TaskQueues.CONTROL).registerActivitiesImplementations(control);
    env.newWorker(TaskQueues.cluster("clu_a")).registerActivitiesImplementations(clusterA);
    env.newWorker(TaskQueues.cluster("clu_b")).registerActivitiesImplementations(clusterB);
    env.start();
    VolumeReclaimWorkflow reclaim = client.newWorkflowStub(VolumeReclaimWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(WorkflowIds.volumeReclaim(VOLUME)).setTaskQueue(worker.getTaskQueue()).build());
    WorkflowClient.start(reclaim::reclaim, new ReclaimRequest(VOLUME, DAY));
    return reclaim;
  }

  private static OperationProgress result(VolumeReclaimWorkflow reclaim) {
    return WorkflowStub.fromTyped(reclaim).getResult(OperationProgress.class);
  }

  @Test
  void afterTheGraceEveryClaimIsDeletedAndTheVolumeReclaimed(TestWorkflowEnvironment env, WorkflowClient client,
      Worker worker) {
    long started = env.currentTimeMillis();
    OperationProgress done = result(start(env, client, worker));

    assertThat(env.currentTimeMillis() - started).as("the grace period, on a durable timer")
        .isGreaterThanOrEqualTo(Duration.ofHours(24).toMillis());
    assertThat(done.status()).isEqualTo(OperationStatus.COMPLETED);
    assertThat(done.steps().get(1).detail()).contains("deleted on clu_a").contains("deleted on clu_b")
        .contains("detached cluster clu_gone: not deleted");
    var order = inOrder(control, clusterA, clusterB);
    order.verify(control).begin(VOLUME);
    order.verify(clusterA).deleteClaim("gshare-vol-1");
    order.verify(clusterB).deleteClaim("gshare-vol-1");
    order.verify(control).markReclaimed(VOLUME);
  }

  @Test
  void aRestoreWithinTheGraceDeletesNothing(TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    VolumeReclaimWorkflow reclaim = start(env, client, worker);
    env.sleep(Duration.ofHours(3));
    reclaim.restore();

    OperationProgress done = result(reclaim);

    assertThat(done.status()).isEqualTo(OperationStatus.COMPLETED);
    assertThat(done.steps().get(0).detail()).contains("restored within the grace period");
    verify(control, never()).begin(anyString());
    verify(clusterA, never()).deleteClaim(anyString());
    verify(control, never()).markReclaimed(anyString());
  }

  @Test
  void aClaimThatWillNotGoStopsTheReclaimWithAnAlertUntilAnAdminRetries(TestWorkflowEnvironment env,
      WorkflowClient client, Worker worker) {
    doThrow(ApplicationFailure.newFailure("still mounted by pod gshare-sessions/gshare-ses-9", "claim_still_present"))
        .when(clusterB).deleteClaim("gshare-vol-1");
    VolumeReclaimWorkflow reclaim = start(env, client, worker);
    env.sleep(Duration.ofHours(25));
    for (int i = 0; i < 100 && reclaim.progress().error() == null; i++) {
      env.sleep(Duration.ofMinutes(1));
    }

    OperationProgress stopped = reclaim.progress();
    assertThat(stopped.status()).isEqualTo(OperationStatus.FAILED);
    assertThat(stopped.error()).contains("gshare-vol-1 on clu_b").contains("still mounted by pod gshare-sessions/gshare-ses-9");
    verify(clusterB, times(VolumeReclaimWorkflowImpl.CLAIM_ATTEMPTS)).deleteClaim("gshare-vol-1");
    verify(control).alert(eq(VOLUME), contains("still mounted"));
    verify(control, never()).markReclaimed(anyString());

    // The pod goes; the admin retries; the claims step runs again and the volume is reclaimed.
    doNothing().when(clusterB).deleteClaim("gshare-vol-1");
    WorkflowStub.fromTyped(reclaim).signal(VolumeReclaimWorkflow.RETRY);
    OperationProgress done = result(reclaim);

    assertThat(done.status()).isEqualTo(OperationStatus.COMPLETED);
    verify(control).markReclaimed(VOLUME);
    verify(clusterA, atLeast(2)).deleteClaim("gshare-vol-1");
    verify(control, atLeast(1)).recordOperation(argThat(p -> OperationStatus.FAILED.equals(p.status())));
  }

  @Test
  void aVolumeRestoredJustAsTheGraceEndsIsLeftAlone(TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    when(control.begin(VOLUME)).thenReturn(false);

    OperationProgress done = result(start(env, client, worker));

    assertThat(done.status()).isEqualTo(OperationStatus.COMPLETED);
    verify(clusterA, never()).deleteClaim(anyString());
    verify(control, never()).markReclaimed(any());
  }
}
