package io.gshare.workflows.session;

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

class SessionRecoveryWorkflowTest {

  private TestWorkflowEnvironment env;
  private final AtomicInteger calls = new AtomicInteger();

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    Worker worker = env.newWorker(TaskQueues.CONTROL);
    worker.registerWorkflowImplementationTypes(SessionRecoveryWorkflowImpl.class);
    // The first attempt fails before it recovered anything (Postgres went away); the retry recovers.
    worker.registerActivitiesImplementations((SessionRecoveryActivities) () -> {
      if (calls.incrementAndGet() == 1) {
        throw new IllegalStateException("the database went away");
      }
      return new SessionRecoveryPass(3, List.of("ses_a"), List.of("ses_b"), List.of());
    });
    env.start();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void aPassRecoversWhatItsActivityFoundRetryingAFailure() {
    SessionRecoveryWorkflow recovery = env.getWorkflowClient().newWorkflowStub(SessionRecoveryWorkflow.class,
        WorkflowOptions.newBuilder().setTaskQueue(TaskQueues.CONTROL).setWorkflowId(WorkflowIds.SESSION_RECOVERY)
            .build());

    SessionRecoveryPass pass = recovery.recover();

    assertThat(pass.unfinished()).isEqualTo(3);
    assertThat(pass.restarted()).containsExactly("ses_a");
    assertThat(pass.ended()).containsExactly("ses_b");
    assertThat(pass.unreachable()).isEmpty();
    assertThat(calls).hasValue(2);
  }
}
