package io.gshare.workflows.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.OperationStatus;
import io.gshare.workflows.common.OperationStep;
import io.gshare.workflows.common.StepStatus;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.session.DrainMode;
import io.gshare.workflows.session.PauseKind;
import io.gshare.workflows.session.SessionDrainOrder;
import io.gshare.workflows.session.SessionDrainOutcome;
import io.gshare.workflows.session.SessionState;
import io.temporal.activity.Activity;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.TestWorkflowExtension;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class NodeDrainWorkflowTest {

  private static final String NODE = "nod_1";
  private static final String CLUSTER = "clu_a";
  private static final String HOST = "gpu-1";

  @RegisterExtension
  static final TestWorkflowExtension testWorkflow = TestWorkflowExtension.newBuilder()
      .registerWorkflowImplementationTypes(NodeDrainWorkflowImpl.class, NodeUncordonWorkflowImpl.class)
      .setDoNotStart(true)
      .build();

  private NodeDrainActivities control;
  private NodeClusterActivities cluster;

  @BeforeEach
  void mocks() {
    control = mock(NodeDrainActivities.class, withSettings().withoutAnnotations());
    cluster = mock(NodeClusterActivities.class, withSettings().withoutAnnotations());
    when(cluster.evictPods(any())).thenReturn(new EvictionResult(List.of("team-a/batch-1"), 3, List.of()));
  }

  private static DrainRequest request(DrainMode mode, long deadlineSeconds) {
    return new DrainRequest(NODE, CLUSTER, HOST, mode, deadlineSeconds, "disk swap");
  }

  private static SessionDrainOutcome moved(String session, String to) {
    return new SessionDrainOutcome(session, SessionState.RUNNING, HOST, to, PauseKind.LOSSLESS, "moved to " + to);
  }

  private NodeDrainWorkflow start(TestWorkflowEnvironment env, WorkflowClient client, Worker worker,
      NodeDrainActivities controlImpl, DrainRequest request) {
    env.newWorker(TaskQueues.CONTROL).registerActivitiesImplementations(controlImpl);
    env.newWorker(TaskQueues.cluster(CLUSTER)).registerActivitiesImplementations(cluster);
    env.start();
    NodeDrainWorkflow drain = client.newWorkflowStub(NodeDrainWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(WorkflowIds.nodeDrain(NODE)).setTaskQueue(worker.getTaskQueue()).build());
    WorkflowClient.start(drain::drain, request);
    return drain;
  }

  /** Bounded: a drain that never ends fails its test in two minutes instead of holding the build. */
  private static OperationProgress result(NodeDrainWorkflow drain) {
    try {
      return WorkflowStub.fromTyped(drain).getResult(2, TimeUnit.MINUTES, OperationProgress.class);
    } catch (TimeoutException e) {
      throw new AssertionError("the drain did not end within 2 minutes", e);
    }
  }

  @Test
  void aDrainCordonsMovesEverySessionOnceEvictsTheRestAndMarksTheNodeDrained(TestWorkflowEnvironment env,
      WorkflowClient client, Worker worker) {
    when(control.sessionsOn(NODE)).thenReturn(List.of("ses_1", "ses_2", "ses_3"));
    when(control.drainSession(anyString(), any())).thenAnswer(call -> moved(call.getArgument(0), "gpu-2"));

    OperationProgress done = result(start(env, client, worker, control, request(DrainMode.MIGRATE, 600)));

    assertThat(done.status()).isEqualTo(OperationStatus.COMPLETED);
    assertThat(done.steps()).extracting(OperationStep::status).containsOnly(StepStatus.DONE);
    assertThat(done.steps().get(1).detail()).contains("ses_1 moved to gpu-2").contains("ses_3");
    assertThat(done.steps().get(2).detail()).contains("1 pod(s) evicted (team-a/batch-1)").contains("3 DaemonSet pod(s) stay");
    var order = inOrder(control, cluster);
    // Postgres first, so placement skips the node before the cluster even hears of the drain.
    order.verify(control).markDraining(NODE, "disk swap");
    order.verify(cluster).setUnschedulable(HOST, true);
    order.verify(control).sessionsOn(NODE);
    order.verify(cluster).evictPods(argThat(r -> HOST.equals(r.hostname())));
    order.verify(control).markDrained(NODE);
    for (String session : List.of("ses_1", "ses_2", "ses_3")) {
      verify(control, times(1)).drainSession(eq(session),
          eq(new SessionDrainOrder(NODE, HOST, DrainMode.MIGRATE, "disk swap")));
    }
    verify(control).recordOperation(argThat(p -> OperationStatus.COMPLETED.equals(p.status())));
  }

  @Test
  void aSessionThatCouldNotBeSettledStopsTheDrainBeforeEvictionAndNamesIt(TestWorkflowEnvironment env,
      WorkflowClient client, Worker worker) {
    when(control.sessionsOn(NODE)).thenReturn(List.of("ses_1", "ses_2"));
    when(control.drainSession(eq("ses_1"), any())).thenReturn(moved("ses_1", "gpu-2"));
    when(control.drainSession(eq("ses_2"), any())).thenThrow(
        ApplicationFailure.newNonRetryableFailure("its workflow is stuck", "test"));

    NodeDrainWorkflow drain = start(env, client, worker, control, request(DrainMode.MIGRATE, 600));

    assertThatThrownBy(() -> result(drain)).isInstanceOf(WorkflowFailedException.class)
        .rootCause().hasMessageContaining("sessions not settled by the deadline: ses_2")
        .hasMessageContaining("its workflow is stuck");
    verify(cluster, never()).evictPods(any());
    verify(control, never()).markDrained(anyString());
    verify(control).recordOperation(argThat(p -> OperationStatus.FAILED.equals(p.status())));
  }

  /**
   * A session order that never answers (its checkpoint hangs): the deadline ends the wait, and the drain
   * says so. (The deadline is short because an activity left pending stops the test server skipping time.)
   */
  @Test
  void theDeadlineEndsAWaitForASessionThatNeverSettles(TestWorkflowEnvironment env, WorkflowClient client,
      Worker worker) {
    AtomicInteger attempts = new AtomicInteger();
    NodeDrainActivities hanging = new RecordingControl(List.of("ses_slow")) {
      @Override
      public SessionDrainOutcome drainSession(String sessionId, SessionDrainOrder order) {
        attempts.incrementAndGet();
        Activity.getExecutionContext().doNotCompleteOnReturn();
        return null;
      }
    };
    long started = env.currentTimeMillis();
    NodeDrainWorkflow drain = start(env, client, worker, hanging, request(DrainMode.MIGRATE, 3));

    assertThatThrownBy(() -> result(drain)).rootCause().hasMessageContaining("ses_slow: not settled");
    assertThat(env.currentTimeMillis() - started).as("the drain gave up at its deadline, in workflow time")
        .isGreaterThanOrEqualTo(Duration.ofSeconds(3).toMillis());
    assertThat(attempts.get()).as("the order is sent once, not retried past the deadline").isEqualTo(1);
    verify(cluster, never()).evictPods(any());
  }

  @Test
  void aPodDisruptionBudgetThatKeepsRefusingIsReportedAndTheNodeStaysCordoned(TestWorkflowEnvironment env,
      WorkflowClient client, Worker worker) {
    when(control.sessionsOn(NODE)).thenReturn(List.of());
    when(cluster.evictPods(any())).thenReturn(new EvictionResult(List.of(), 1,
        List.of("team-a/db-0: eviction refused by its PodDisruptionBudget (429)")));

    NodeDrainWorkflow drain = start(env, client, worker, control, request(DrainMode.MIGRATE, 300));

    assertThatThrownBy(() -> result(drain)).rootCause()
        .hasMessageContaining("pods not evicted by the deadline: team-a/db-0: eviction refused by its PodDisruptionBudget")
        .hasMessageContaining("The node stays cordoned");
    verify(cluster, never()).setUnschedulable(HOST, false);
    verify(control, never()).markDrained(anyString());
  }

  @Test
  void anUncordonStopsADrainUnderWayAndClearsTheMark(TestWorkflowEnvironment env, WorkflowClient client,
      Worker worker) {
    NodeDrainActivities hanging = new RecordingControl(List.of("ses_slow")) {
      @Override
      public SessionDrainOutcome drainSession(String sessionId, SessionDrainOrder order) {
        Activity.getExecutionContext().doNotCompleteOnReturn();
        return null;
      }
    };
    NodeDrainWorkflow drain = start(env, client, worker, hanging, request(DrainMode.MIGRATE, 3600));
    env.sleep(Duration.ofSeconds(1));

    WorkflowStub.fromTyped(drain).cancel();
    NodeUncordonWorkflow uncordon = client.newWorkflowStub(NodeUncordonWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(WorkflowIds.nodeUncordon(NODE)).setTaskQueue(worker.getTaskQueue()).build());
    OperationProgress undone = uncordon.uncordon(new NodeTarget(NODE, CLUSTER, HOST));

    assertThat(undone.status()).isEqualTo(OperationStatus.COMPLETED);
    assertThatThrownBy(() -> result(drain)).isInstanceOf(WorkflowFailedException.class);
    verify(cluster).setUnschedulable(HOST, false);
    assertThat(((RecordingControl) hanging).cleared).isTrue();
    assertThat(((RecordingControl) hanging).recorded).anyMatch(p -> p.kind().equals("node.drain")
        && p.error() != null && p.error().contains("uncordoned while draining"));
    verify(cluster, never()).evictPods(any());
  }

  /** A hand-written control side for tests whose activities must not complete (Mockito cannot). */
  static class RecordingControl implements NodeDrainActivities {
    final List<String> sessions;
    final List<OperationProgress> recorded = new CopyOnWriteArrayList<>();
    final ConcurrentHashMap<String, Integer> orders = new ConcurrentHashMap<>();
    volatile boolean cleared;

    RecordingControl(List<String> sessions) {
      this.sessions = sessions;
    }

    @Override public void markDraining(String nodeId, String reason) {}
    @Override public List<String> sessionsOn(String nodeId) {
      return sessions;
    }
    @Override public SessionDrainOutcome drainSession(String sessionId, SessionDrainOrder order) {
      orders.merge(sessionId, 1, Integer::sum);
      return moved(sessionId, "gpu-2");
    }
    @Override public void markDrained(String nodeId) {}
    @Override public void clearDrain(String nodeId) {
      cleared = true;
    }
    @Override public List<String> cordonedDevices(String nodeId) {
      return List.of();
    }
    @Override public void recordOperation(OperationProgress progress) {
      recorded.add(progress);
    }
  }
}
