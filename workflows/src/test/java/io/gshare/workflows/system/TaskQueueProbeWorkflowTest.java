package io.gshare.workflows.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.TestWorkflowExtension;
import io.temporal.worker.Worker;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TaskQueueProbeWorkflowTest {

  @RegisterExtension
  static final TestWorkflowExtension testWorkflow =
      TestWorkflowExtension.newBuilder()
          .registerWorkflowImplementationTypes(TaskQueueProbeWorkflowImpl.class)
          .setDoNotStart(true)
          .build();

  private static TaskQueueProbeWorkflow stub(WorkflowClient client, Worker worker) {
    return client.newWorkflowStub(
        TaskQueueProbeWorkflow.class, WorkflowOptions.newBuilder().setTaskQueue(worker.getTaskQueue()).build());
  }

  @Test
  void aPolledQueueAnswersWithTheWorkersIdentity(TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    WorkerPingActivities ping = mock(WorkerPingActivities.class, withSettings().withoutAnnotations());
    when(ping.ping()).thenReturn(new WorkerIdentity("42@host", "cluster-worker", "0.1.0"));
    env.newWorker("gshare-cluster-clu_a").registerActivitiesImplementations(ping);
    env.start();

    TaskQueueProbeResult result =
        stub(client, worker).probe(new TaskQueueProbeRequest("gshare-cluster-clu_a", Duration.ofSeconds(3)));

    assertThat(result.polled()).isTrue();
    assertThat(result.worker().identity()).isEqualTo("42@host");
  }

  @Test
  void anUnpolledQueueAnswersNotPolled(TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    env.start();

    TaskQueueProbeResult result =
        stub(client, worker).probe(new TaskQueueProbeRequest("gshare-cluster-clu_gone", Duration.ofSeconds(3)));

    assertThat(result.polled()).isFalse();
    assertThat(result.worker()).isNull();
  }
}
