package io.gshare.workflows.alert;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AlertDeliveryWorkflowTest {

  private TestWorkflowEnvironment env;
  private final AtomicInteger resolveCalls = new AtomicInteger();
  private final AtomicInteger batchCalls = new AtomicInteger();
  /** The attempt that meets this fails (its transaction rolled back, nothing recorded). */
  private static final AlertBatch FAILS = new AlertBatch(-1, -1, true);
  /** What the next batches claim; when it is empty, nothing is due. */
  private final Deque<AlertBatch> batches = new ArrayDeque<>();

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    Worker worker = env.newWorker(TaskQueues.CONTROL);
    worker.registerWorkflowImplementationTypes(AlertDeliveryWorkflowImpl.class);
    worker.registerActivitiesImplementations(new AlertDeliveryActivities() {
      @Override
      public int resolveEnded() {
        resolveCalls.incrementAndGet();
        return 2;
      }

      @Override
      public AlertBatch deliverBatch() {
        batchCalls.incrementAndGet();
        AlertBatch next = batches.isEmpty() ? AlertBatch.NONE : batches.poll();
        if (next == FAILS) {
          throw new IllegalStateException("the database went away");
        }
        return next;
      }
    });
    env.start();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  private AlertDeliveryWorkflow delivery() {
    return env.getWorkflowClient().newWorkflowStub(AlertDeliveryWorkflow.class, WorkflowOptions.newBuilder()
        .setTaskQueue(TaskQueues.CONTROL).setWorkflowId(WorkflowIds.ALERT_DELIVERY).build());
  }

  @Test
  void aPassResolvesThenSendsBatchesWhileTheyComeFullRetryingAFailedOne() {
    batches.add(new AlertBatch(20, 19, true));
    batches.add(FAILS);
    batches.add(new AlertBatch(20, 20, true));
    batches.add(new AlertBatch(3, 3, false));
    batches.add(new AlertBatch(5, 5, false)); // not asked: the batch before was not full

    assertThat(delivery().deliver()).isEqualTo(new AlertDeliveryRun(2, 42, 1));
    assertThat(resolveCalls).hasValue(1);
    assertThat(batchCalls).hasValue(4);
    assertThat(batches).containsExactly(new AlertBatch(5, 5, false));
  }

  @Test
  void nothingDueIsOneEmptyBatch() {
    assertThat(delivery().deliver()).isEqualTo(new AlertDeliveryRun(2, 0, 0));
    assertThat(batchCalls).hasValue(1);
  }

  @Test
  void aBacklogIsSentAtMostFiftyBatchesAPassTheRestAtTheNextTick() {
    IntStream.range(0, AlertDeliveryWorkflowImpl.MAX_BATCHES + 10).forEach(i -> batches.add(new AlertBatch(20, 20, true)));

    assertThat(delivery().deliver().delivered()).isEqualTo(AlertDeliveryWorkflowImpl.MAX_BATCHES * 20);
    assertThat(batchCalls).hasValue(AlertDeliveryWorkflowImpl.MAX_BATCHES);
  }
}
