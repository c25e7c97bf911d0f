package io.gshare.workflows.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.OperationStatus;
import io.gshare.workflows.common.OperationStep;
import io.gshare.workflows.common.StepStatus;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.TestWorkflowExtension;
import io.temporal.worker.Worker;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ImagePrepullWorkflowTest {

  private static final String IMAGE = "img_1";
  private static final String REF = "registry.example.com/gshare/jupyter:2026.11";

  @RegisterExtension
  static final TestWorkflowExtension testWorkflow = TestWorkflowExtension.newBuilder()
      .registerWorkflowImplementationTypes(ImagePrepullWorkflowImpl.class)
      .setDoNotStart(true)
      .build();

  private ImagePrepullActivities control;
  private ImagePullClusterActivities clusterA;
  private ImagePullClusterActivities clusterB;

  @BeforeEach
  void mocks() {
    control = mock(ImagePrepullActivities.class, withSettings().withoutAnnotations());
    clusterA = mock(ImagePullClusterActivities.class, withSettings().withoutAnnotations());
    clusterB = mock(ImagePullClusterActivities.class, withSettings().withoutAnnotations());
  }

  private ImagePrepullWorkflow start(TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    env.newWorker(TaskQueues.CONTROL).registerActivitiesImplementations(control);
    env.newWorker(TaskQueues.cluster("clu_a")).registerActivitiesImplementations(clusterA);
    env.newWorker(TaskQueues.cluster("clu_b")).registerActivitiesImplementations(clusterB);
    env.start();
    ImagePrepullWorkflow prepull = client.newWorkflowStub(ImagePrepullWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(WorkflowIds.imagePrepull(IMAGE)).setTaskQueue(worker.getTaskQueue()).build());
    WorkflowClient.start(prepull::prepull, new PrepullRequest(IMAGE, REF, List.of(
        new PrepullRequest.ClusterNodes("clu_a", List.of("a-0", "a-1")),
        new PrepullRequest.ClusterNodes("clu_b", List.of("b-0")))));
    return prepull;
  }

  private static OperationStep step(OperationProgress progress, String cluster) {
    return progress.steps().stream().filter(s -> s.name().equals(ImagePrepullWorkflowImpl.step(cluster))).findFirst()
        .orElseThrow();
  }

  @Test
  void everyClusterPullsOntoItsOwnNodesAndEachNodeIsReportedPulledOrSkipped(TestWorkflowEnvironment env,
      WorkflowClient client, Worker worker) {
    when(clusterA.pull(any())).thenReturn(new ImagePullResult(List.of(NodePull.pulled("a-0"),
        NodePull.alreadyPresent("a-1"))));
    when(clusterB.pull(any())).thenReturn(new ImagePullResult(List.of(NodePull.alreadyPresent("b-0"))));

    OperationProgress done = WorkflowStub.fromTyped(start(env, client, worker)).getResult(OperationProgress.class);

    assertThat(done.status()).isEqualTo(OperationStatus.COMPLETED);
    assertThat(done.operationId()).isEqualTo("image-prepull-img_1");
    assertThat(step(done, "clu_a").status()).isEqualTo(StepStatus.DONE);
    assertThat(step(done, "clu_a").detail()).startsWith("1 pulled, 1 already present")
        .contains("a-0: pulled").contains("a-1: already present");
    assertThat(step(done, "clu_b").detail()).startsWith("1 already present").contains("b-0: already present");
    verify(clusterA).pull(new ImagePullRequest(IMAGE, REF, List.of("a-0", "a-1")));
    verify(clusterB).pull(new ImagePullRequest(IMAGE, REF, List.of("b-0")));
    verify(control).recordOperation(argThat(p -> p.status().equals(OperationStatus.COMPLETED)));
  }

  @Test
  void aNodeThatFailsIsReportedWithItsReasonWhileTheOthersAreStillPulled(TestWorkflowEnvironment env,
      WorkflowClient client, Worker worker) {
    when(clusterA.pull(any())).thenReturn(new ImagePullResult(List.of(NodePull.pulled("a-0"),
        NodePull.failed("a-1", "ErrImagePull: failed to pull and unpack image: no space left on device"))));
    when(clusterB.pull(any())).thenReturn(new ImagePullResult(List.of(NodePull.pulled("b-0"))));

    ImagePrepullWorkflow prepull = start(env, client, worker);

    assertThatThrownBy(() -> WorkflowStub.fromTyped(prepull).getResult(OperationProgress.class))
        .isInstanceOf(WorkflowFailedException.class)
        .rootCause().isInstanceOf(ApplicationFailure.class)
        .hasMessageContaining("not pulled on 1 of 3 node(s)").hasMessageContaining("a-1: failed: ErrImagePull");
    OperationProgress ended = prepull.progress();
    assertThat(ended.status()).isEqualTo(OperationStatus.FAILED);
    assertThat(step(ended, "clu_a").status()).isEqualTo(StepStatus.FAILED);
    assertThat(step(ended, "clu_a").detail()).contains("a-0: pulled").contains("no space left on device");
    assertThat(step(ended, "clu_b").status()).isEqualTo(StepStatus.DONE);
    verify(control).recordOperation(argThat(p -> p.status().equals(OperationStatus.FAILED)));
  }

  @Test
  void aClusterWhoseWorkerFailsHasEachOfItsNodesReportedAndTheOtherClusterStillPulls(TestWorkflowEnvironment env,
      WorkflowClient client, Worker worker) {
    when(clusterA.pull(any())).thenThrow(ApplicationFailure.newNonRetryableFailure("apiserver said 403", "Forbidden"));
    when(clusterB.pull(any())).thenReturn(new ImagePullResult(List.of(NodePull.pulled("b-0"))));

    ImagePrepullWorkflow prepull = start(env, client, worker);

    assertThatThrownBy(() -> WorkflowStub.fromTyped(prepull).getResult(OperationProgress.class))
        .isInstanceOf(WorkflowFailedException.class);
    OperationProgress ended = prepull.progress();
    assertThat(step(ended, "clu_a").detail()).contains("a-0: failed").contains("a-1: failed").contains("403");
    assertThat(step(ended, "clu_b").detail()).contains("b-0: pulled");
    assertThat(ended.error()).contains("not pulled on 2 of 3 node(s)");
  }
}
