package io.gshare.workflows.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class NodeLivenessWorkflowTest {

  private TestWorkflowEnvironment env;
  private final AtomicInteger calls = new AtomicInteger();

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    Worker worker = env.newWorker(TaskQueues.CONTROL);
    worker.registerWorkflowImplementationTypes(NodeLivenessWorkflowImpl.class);
    // The first attempt fails after nothing was marked (its transaction rolled back); the retry alerts.
    worker.registerActivitiesImplementations((NodeLivenessActivities) () -> {
      if (calls.incrementAndGet() == 1) {
        throw new IllegalStateException("the database went away");
      }
      return List.of("gpu-1");
    });
    env.start();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void aSweepRaisesTheAlertsItsActivityFoundRetryingAFailure() {
    NodeLivenessWorkflow sweep = env.getWorkflowClient().newWorkflowStub(NodeLivenessWorkflow.class,
        WorkflowOptions.newBuilder().setTaskQueue(TaskQueues.CONTROL).setWorkflowId(WorkflowIds.NODE_LIVENESS).build());
    assertThat(sweep.sweep()).containsExactly("gpu-1");
    assertThat(calls).hasValue(2);
  }
}
