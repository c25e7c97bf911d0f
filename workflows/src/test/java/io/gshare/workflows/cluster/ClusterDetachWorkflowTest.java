package io.gshare.workflows.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.OperationStatus;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.TestWorkflowExtension;
import io.temporal.worker.Worker;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mockito.Mockito;

class ClusterDetachWorkflowTest {

  private static final String CLUSTER = "clu_old";

  @RegisterExtension
  static final TestWorkflowExtension testWorkflow = TestWorkflowExtension.newBuilder()
      .registerWorkflowImplementationTypes(ClusterDetachWorkflowImpl.class)
      .setDoNotStart(true)
      .build();

  private ClusterRemoteActivities remote;
  private ClusterStateActivities state;

  @BeforeEach
  void mocks() {
    remote = mock(ClusterRemoteActivities.class, withSettings().withoutAnnotations());
    state = mock(ClusterStateActivities.class, withSettings().withoutAnnotations());
  }

  private ClusterDetachWorkflow stub(TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    env.newWorker(TaskQueues.CONTROL).registerActivitiesImplementations(remote, state);
    env.start();
    return client.newWorkflowStub(ClusterDetachWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(WorkflowIds.clusterDetach(CLUSTER)).setTaskQueue(worker.getTaskQueue()).build());
  }

  @Test
  void aBusyClusterIsRefusedAndNothingIsRemoved(TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    when(state.busyReasons(CLUSTER)).thenReturn(List.of("1 session not ended (ses_1)"));

    assertThatThrownBy(() -> stub(env, client, worker).detach(CLUSTER))
        .rootCause().hasMessageContaining("detach refused: 1 session not ended (ses_1)");
    verify(remote, never()).removeWorker(anyString());
    verify(state, never()).deleteInventory(anyString());
    verify(state).recordOperation(argThat(p -> p.status().equals(OperationStatus.FAILED)));
  }

  @Test
  void anIdleClusterIsDetachedEvenWhenItsApiserverIsGone(TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    when(state.busyReasons(CLUSTER)).thenReturn(List.of());
    doThrow(new IllegalStateException("connection refused")).when(remote).removeWorker(CLUSTER);

    OperationProgress result = stub(env, client, worker).detach(CLUSTER);

    assertThat(result.status()).isEqualTo(OperationStatus.COMPLETED);
    assertThat(result.steps().get(1).detail()).contains("connection refused").contains("by hand");
    var order = Mockito.inOrder(state);
    order.verify(state).markStatus(CLUSTER, ClusterStatus.DETACHING, null);
    order.verify(state).deleteInventory(CLUSTER);
    order.verify(state).markStatus(CLUSTER, ClusterStatus.DETACHED, null);
  }

  @Test
  void aDetachThatCannotFinishSaysWhyAndIsNotLeftDetaching(TestWorkflowEnvironment env, WorkflowClient client,
      Worker worker) {
    when(state.busyReasons(CLUSTER)).thenReturn(List.of());
    doThrow(ApplicationFailure.newNonRetryableFailure("database is read-only", "Db"))
        .when(state).deleteInventory(CLUSTER);

    assertThatThrownBy(() -> stub(env, client, worker).detach(CLUSTER))
        .rootCause().hasMessageContaining("detach failed: database is read-only");
    verify(state).markStatus(argThat(CLUSTER::equals), argThat(ClusterStatus.FAILED::equals), argThat(r -> r.contains("detach again")));
    verify(state, never()).markStatus(CLUSTER, ClusterStatus.DETACHED, null);
    verify(state).recordOperation(argThat(p -> p.status().equals(OperationStatus.FAILED)));
  }
}
