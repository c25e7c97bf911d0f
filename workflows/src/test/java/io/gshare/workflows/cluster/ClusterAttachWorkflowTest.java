package io.gshare.workflows.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import io.gshare.workflows.common.FailureTypes;
import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.OperationStatus;
import io.gshare.workflows.common.OperationStep;
import io.gshare.workflows.common.StepStatus;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.system.WorkerIdentity;
import io.gshare.workflows.system.WorkerPingActivities;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.TestWorkflowExtension;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactoryOptions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mockito.Mockito;
import org.mockito.invocation.InvocationOnMock;
import org.mockito.stubbing.Answer;

class ClusterAttachWorkflowTest {

  private static final String CLUSTER = "clu_new";

  @RegisterExtension
  static final TestWorkflowExtension testWorkflow = TestWorkflowExtension.newBuilder()
      .registerWorkflowImplementationTypes(ClusterAttachWorkflowImpl.class)
      .setWorkerFactoryOptions(WorkerFactoryOptions.newBuilder().build())
      .setDoNotStart(true)
      .build();

  private ClusterRemoteActivities remote;
  private ClusterStateActivities state;
  private WorkerPingActivities ping;

  @BeforeEach
  void mocks() {
    remote = mock(ClusterRemoteActivities.class, withSettings().withoutAnnotations());
    state = mock(ClusterStateActivities.class, withSettings().withoutAnnotations());
    ping = mock(WorkerPingActivities.class, withSettings().withoutAnnotations());
    when(remote.probeApiserver(CLUSTER)).thenReturn("v1.36.0");
    when(remote.checkRuntime(CLUSTER)).thenReturn(healthy(true, true));
    when(remote.deployWorker(CLUSTER)).thenReturn("Deployment gshare-system/gshare-cluster-worker");
    when(ping.ping()).thenReturn(new WorkerIdentity("7@node/" + CLUSTER, "cluster-worker", "1"));
    when(state.inventorySeen(eq(CLUSTER), anyLong())).thenReturn(true);
  }

  private static ClusterDescription healthy(boolean runtimeClass, boolean hami) {
    var gpu = new GpuDeviceInfo("GPU-1", 0, "NVIDIA H100 80GB HBM3", 81559, 100, 1, true);
    return new ClusterDescription("v1.36.0", List.of(new NodeInfo("n1", true, true, "exclusive", true, false, List.of(gpu))),
        runtimeClass, hami, true, false);
  }

  private void start(TestWorkflowEnvironment env, Worker control, boolean clusterWorkerPolls) {
    // The workflow sends its activities to gshare-control, as in production.
    env.newWorker(TaskQueues.CONTROL).registerActivitiesImplementations(remote, state);
    if (clusterWorkerPolls) {
      env.newWorker(TaskQueues.cluster(CLUSTER)).registerActivitiesImplementations(ping);
    }
    env.start();
  }

  private static ClusterAttachWorkflow stub(WorkflowClient client, Worker worker) {
    return client.newWorkflowStub(ClusterAttachWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(WorkflowIds.clusterAttach(CLUSTER)).setTaskQueue(worker.getTaskQueue()).build());
  }

  @Test
  void attachRunsEveryStepInOrderAndMarksTheClusterConnected(TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    start(env, worker, true);

    OperationProgress result = stub(client, worker).attach(new ClusterAttachRequest(CLUSTER, Duration.ofSeconds(30), 3));

    assertThat(result.status()).isEqualTo(OperationStatus.COMPLETED);
    assertThat(result.steps()).extracting(OperationStep::name).containsExactlyElementsOf(ClusterAttachWorkflowImpl.STEPS);
    assertThat(result.steps()).allSatisfy(s -> assertThat(s.status()).isEqualTo(StepStatus.DONE));
    assertThat(result.nextStep()).isNull();
    var order = Mockito.inOrder(remote, state);
    order.verify(state).markStatus(CLUSTER, ClusterStatus.ATTACHING, null);
    order.verify(remote).probeApiserver(CLUSTER);
    order.verify(remote).checkRuntime(CLUSTER);
    order.verify(remote).prepareNamespace(CLUSTER);
    order.verify(remote).installOperatorToken(CLUSTER);
    order.verify(remote).deployWorker(CLUSTER);
    order.verify(state).markStatus(CLUSTER, ClusterStatus.CONNECTED, null);
    order.verify(state).recordOperation(argThat(p -> p.status().equals(OperationStatus.COMPLETED)));
  }

  @Test
  void anUnreachableApiserverFailsWithTheGuidesAdviceAfterBoundedRetries(
      TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    when(remote.probeApiserver(CLUSTER)).thenThrow(new IllegalStateException("connect timed out: 10.9.9.9:6443"));
    start(env, worker, true);

    assertThatThrownBy(() -> stub(client, worker).attach(ClusterAttachRequest.of(CLUSTER)))
        .isInstanceOf(WorkflowFailedException.class)
        .rootCause().hasMessageContaining("Unreachable").hasMessageContaining("reachable from")
        .hasMessageContaining("10.9.9.9:6443");
    verify(remote, times(ClusterAttachWorkflowImpl.REACH_ATTEMPTS)).probeApiserver(CLUSTER);
    verify(state).markStatus(eq(CLUSTER), eq(ClusterStatus.FAILED), argThat(r -> r.startsWith("Unreachable")));
    verify(remote, never()).prepareNamespace(anyString());
  }

  @Test
  void aMissingRuntimeRefusesRegistrationAndSaysWhich(TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    when(remote.checkRuntime(CLUSTER)).thenReturn(healthy(false, true));
    start(env, worker, true);

    assertThatThrownBy(() -> stub(client, worker).attach(ClusterAttachRequest.of(CLUSTER)))
        .rootCause().hasMessageContaining("registration refused").hasMessageContaining("RuntimeClass 'nvidia'")
        .satisfies(e -> assertThat(((ApplicationFailure) e).getType()).isEqualTo(FailureTypes.CLUSTER_ATTACH_FAILED));
    verify(state).recordOperation(argThat(p -> p.status().equals(OperationStatus.FAILED)
        && p.steps().stream().anyMatch(s -> s.name().equals(ClusterAttachWorkflowImpl.RUNTIME) && s.status() == StepStatus.FAILED)));
    verify(remote, never()).deployWorker(anyString());
  }

  @Test
  void aWorkerThatNeverPollsIsRedeployedThenTheAttachFails(TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    start(env, worker, false);

    // The embedded server times schedule-to-start in real time: keep the wait short.
    assertThatThrownBy(() -> stub(client, worker).attach(new ClusterAttachRequest(CLUSTER, Duration.ofSeconds(2), 3)))
        .rootCause().hasMessageContaining("no cluster-worker polled gshare-cluster-clu_new within 2s")
        .hasMessageContaining("Temporal gateway").hasMessageContaining("3 deployments");
    verify(remote, times(3)).deployWorker(CLUSTER);
  }

  @Test
  void aWorkerThatDiesBeforeReportingIsReplacedAndTheAttachCompletesOnce(
      TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    // The first worker polls but dies before its inventory; the second one reports.
    when(state.inventorySeen(eq(CLUSTER), anyLong())).thenAnswer(new Answer<Boolean>() {
      @Override
      public Boolean answer(InvocationOnMock invocation) {
        return Mockito.mockingDetails(remote).getInvocations().stream()
            .filter(i -> i.getMethod().getName().equals("deployWorker")).count() >= 2;
      }
    });
    start(env, worker, true);

    OperationProgress result = stub(client, worker).attach(new ClusterAttachRequest(CLUSTER, Duration.ofSeconds(20), 3));

    assertThat(result.status()).isEqualTo(OperationStatus.COMPLETED);
    verify(remote, times(2)).deployWorker(CLUSTER);
    verify(state, times(1)).markStatus(CLUSTER, ClusterStatus.CONNECTED, null);
    assertThat(result.steps()).filteredOn(s -> s.name().equals(ClusterAttachWorkflowImpl.DEPLOY))
        .singleElement().satisfies(s -> assertThat(s.detail()).startsWith("attempt 2"));
  }

  @Test
  void progressIsQueryableWhileTheAttachRuns(TestWorkflowEnvironment env, WorkflowClient client, Worker worker) throws Exception {
    when(state.inventorySeen(eq(CLUSTER), anyLong())).thenReturn(false);
    start(env, worker, true);
    ClusterAttachWorkflow attach = stub(client, worker);
    WorkflowClient.start(attach::attach, new ClusterAttachRequest(CLUSTER, Duration.ofMinutes(10), 1));

    env.sleep(Duration.ofSeconds(30));
    OperationProgress running = client.newWorkflowStub(ClusterAttachWorkflow.class, WorkflowIds.clusterAttach(CLUSTER)).progress();

    assertThat(running.status()).isEqualTo(OperationStatus.RUNNING);
    assertThat(running.nextStep()).isEqualTo(ClusterAttachWorkflowImpl.INVENTORY);
    assertThat(running.steps().get(0).status()).isEqualTo(StepStatus.DONE);
    assertThat(running.steps().get(0).detail()).isEqualTo("apiserver v1.36.0");
  }
}
