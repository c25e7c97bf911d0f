package io.gshare.workflows.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.TestWorkflowExtension;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ClusterProbeWorkflowTest {

  private static final String CLUSTER = "clu_test";

  @RegisterExtension
  static final TestWorkflowExtension testWorkflow =
      TestWorkflowExtension.newBuilder()
          .registerWorkflowImplementationTypes(ClusterProbeWorkflowImpl.class)
          .setDoNotStart(true)
          .build();

  private static ClusterDescription healthyCluster() {
    var gpu = new GpuDeviceInfo("GPU-1", 0, "NVIDIA H100 80GB HBM3", 81559, 100, 10, true);
    var node = new NodeInfo("gpu-1", true, true, "exclusive", true, false, List.of(gpu));
    return new ClusterDescription("v1.36.0", List.of(node), true, true, true, false);
  }

  private static ClusterProbeWorkflow stub(WorkflowClient client, Worker controlWorker) {
    return client.newWorkflowStub(
        ClusterProbeWorkflow.class,
        WorkflowOptions.newBuilder()
            .setWorkflowId(WorkflowIds.clusterProbe(CLUSTER))
            .setTaskQueue(controlWorker.getTaskQueue())
            .build());
  }

  private static ClusterActivities clusterWorkerWith(TestWorkflowEnvironment env) {
    ClusterActivities activities = mock(ClusterActivities.class, withSettings().withoutAnnotations());
    env.newWorker(TaskQueues.cluster(CLUSTER)).registerActivitiesImplementations(activities);
    return activities;
  }

  @Test
  void healthyClusterIsConnectedWithEveryCheckTrue(
      TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    ClusterActivities activities = clusterWorkerWith(env);
    when(activities.describeCluster()).thenReturn(healthyCluster());
    env.start();

    ClusterProbeResult result = stub(client, worker).probe(new ClusterProbeRequest(CLUSTER));

    assertThat(result.status()).isEqualTo(ClusterProbeResult.CONNECTED);
    assertThat(result.reason()).isNull();
    assertThat(result.checks())
        .containsEntry("runtime_class_nvidia", true)
        .containsEntry("hami_device_plugin", true)
        .containsEntry("worker_polling", true);
    assertThat(result.description().gpuCount()).isEqualTo(1);
  }

  @Test
  void missingRuntimeClassIsDegradedAndSaysWhich(TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    ClusterActivities activities = clusterWorkerWith(env);
    ClusterDescription healthy = healthyCluster();
    when(activities.describeCluster())
        .thenReturn(new ClusterDescription(healthy.serverVersion(), healthy.nodes(), false, true, true, false));
    env.start();

    ClusterProbeResult result = stub(client, worker).probe(new ClusterProbeRequest(CLUSTER));

    assertThat(result.status()).isEqualTo(ClusterProbeResult.DEGRADED);
    assertThat(result.checks()).containsEntry("runtime_class_nvidia", false);
    assertThat(result.reason()).contains("RuntimeClass 'nvidia'");
  }

  @Test
  void noWorkerOnTheClusterQueueIsUnreachableNotAHang(
      TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    env.start(); // nobody polls gshare-cluster-clu_test

    ClusterProbeResult result =
        stub(client, worker).probe(new ClusterProbeRequest(CLUSTER, Duration.ofSeconds(5)));

    assertThat(result.status()).isEqualTo(ClusterProbeResult.UNREACHABLE);
    assertThat(result.checks()).containsEntry("worker_polling", false);
    assertThat(result.reason()).contains("gshare-cluster-clu_test");
  }

  @Test
  void failingWorkerIsRetriedThenReportedAsError(
      TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    ClusterActivities activities = clusterWorkerWith(env);
    when(activities.describeCluster()).thenThrow(new IllegalStateException("apiserver said 500"));
    env.start();

    ClusterProbeResult result = stub(client, worker).probe(new ClusterProbeRequest(CLUSTER));

    assertThat(result.status()).isEqualTo(ClusterProbeResult.ERROR);
    assertThat(result.reason()).contains("apiserver said 500");
    verify(activities, times(3)).describeCluster();
  }

  @Test
  void transientFailureIsRetriedToSuccess(TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    ClusterActivities activities = clusterWorkerWith(env);
    when(activities.describeCluster())
        .thenThrow(new IllegalStateException("connection reset"))
        .thenReturn(healthyCluster());
    env.start();

    ClusterProbeResult result = stub(client, worker).probe(new ClusterProbeRequest(CLUSTER));

    assertThat(result.status()).isEqualTo(ClusterProbeResult.CONNECTED);
    verify(activities, times(2)).describeCluster();
  }
}
