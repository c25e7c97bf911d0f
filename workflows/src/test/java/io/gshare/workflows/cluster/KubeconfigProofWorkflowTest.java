package io.gshare.workflows.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.workflows.common.TaskQueues;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proof runs on a control worker, is tried once more when that worker is lost, and hands back the answer. */
class KubeconfigProofWorkflowTest {

  private TestWorkflowEnvironment env;
  private Worker worker;

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance();
    worker = env.newWorker(TaskQueues.CONTROL);
    worker.registerWorkflowImplementationTypes(KubeconfigProofWorkflowImpl.class);
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  @Test
  void aLostAttemptIsRetriedAndTheRefusalComesBackAsTheAnswer() {
    AtomicInteger attempts = new AtomicInteger();
    worker.registerActivitiesImplementations((KubeconfigProofActivities) request -> {
      if (attempts.incrementAndGet() == 1) {
        throw new IllegalStateException("the worker went away");
      }
      return new KubeconfigProof("uid-b", "uid-a", "the new kubeconfig reaches another cluster");
    });
    env.start();
    KubeconfigProofWorkflow workflow = env.getWorkflowClient().newWorkflowStub(KubeconfigProofWorkflow.class,
        WorkflowOptions.newBuilder().setTaskQueue(TaskQueues.CONTROL).setWorkflowId("kubeconfig-proof-clu_a-kcp_1")
            .build());

    KubeconfigProof proof = workflow.prove(new KubeconfigProofRequest("clu_a", new byte[] {1, 2, 3}));

    assertThat(attempts).hasValue(2);
    assertThat(proof.proven()).isFalse();
    assertThat(proof.refusal()).contains("another cluster");
  }
}
