package io.gshare.activities.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.OperationStatus;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.node.DrainRequest;
import io.gshare.workflows.node.EvictionRequest;
import io.gshare.workflows.node.EvictionResult;
import io.gshare.workflows.node.NodeClusterActivities;
import io.gshare.workflows.node.NodeDrainWorkflow;
import io.gshare.workflows.node.NodeDrainWorkflowImpl;
import io.gshare.workflows.session.CheckpointImage;
import io.gshare.workflows.session.DrainMode;
import io.gshare.workflows.session.GpuPlacement;
import io.gshare.workflows.session.MaxRuntimeAction;
import io.gshare.workflows.session.PodPhase;
import io.gshare.workflows.session.PodState;
import io.gshare.workflows.session.SessionClusterActivities;
import io.gshare.workflows.session.SessionControlActivities;
import io.gshare.workflows.session.SessionDrainOrder;
import io.gshare.workflows.session.SessionDrainOutcome;
import io.gshare.workflows.session.SessionPod;
import io.gshare.workflows.session.SessionRecord;
import io.gshare.workflows.session.SessionSnapshot;
import io.gshare.workflows.session.SessionSpec;
import io.gshare.workflows.session.SessionStart;
import io.gshare.workflows.session.SessionState;
import io.gshare.workflows.session.SessionWorkflow;
import io.gshare.workflows.session.SessionWorkflowImpl;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A drain whose worker dies after sending a session its order but before reporting back: the retried
 * activity sends the same order again (same update id), and the session moves once. Real workflows
 * (drain and session) and the real {@link NodeDrainActivitiesImpl}; Postgres and the cluster are fakes.
 */
class NodeDrainRetryTest {

  private static final String CLUSTER = "clu_a";
  private static final GpuPlacement ON_NODE_1 = new GpuPlacement(CLUSTER, "nod_1", "gpu-1", "exclusive", "NVIDIA H100",
      List.of("GPU-1"), null, null, false);
  private static final GpuPlacement ON_NODE_2 = new GpuPlacement(CLUSTER, "nod_2", "gpu-2", "exclusive", "NVIDIA H100",
      List.of("GPU-2"), null, null, false);

  private TestWorkflowEnvironment env;
  private final SessionsFake sessions = new SessionsFake();
  private final ClusterFake cluster = new ClusterFake();

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
  }

  @AfterEach
  void close() {
    env.close();
  }

  @Test
  void aWorkerLostAfterSendingAnOrderMovesTheSessionOnce() {
    WorkflowClient client = env.getWorkflowClient();
    AtomicBoolean lostOnce = new AtomicBoolean();
    ConcurrentHashMap<String, Integer> attempts = new ConcurrentHashMap<>();
    NodeDrainActivitiesImpl drainActivities = new NodeDrainActivitiesImpl(null, null, client, Duration.ofMillis(200)) {
      @Override public void markDraining(String nodeId, String reason) {}
      @Override public List<String> sessionsOn(String nodeId) {
        return List.of("ses_1", "ses_2");
      }
      @Override public SessionDrainOutcome drainSession(String sessionId, SessionDrainOrder order) {
        attempts.merge(sessionId, 1, Integer::sum);
        SessionDrainOutcome outcome = super.drainSession(sessionId, order);
        if ("ses_1".equals(sessionId) && lostOnce.compareAndSet(false, true)) {
          throw new IllegalStateException("the worker was lost before it reported back");
        }
        return outcome;
      }
      @Override public void markDrained(String nodeId) {}
      @Override public void recordOperation(OperationProgress progress) {}
    };
    Worker control = env.newWorker(TaskQueues.CONTROL);
    control.registerWorkflowImplementationTypes(SessionWorkflowImpl.class, NodeDrainWorkflowImpl.class);
    control.registerActivitiesImplementations(sessions, drainActivities);
    env.newWorker(TaskQueues.cluster(CLUSTER)).registerActivitiesImplementations(cluster, new NodeFake());
    env.start();

    for (String id : List.of("ses_1", "ses_2")) {
      SessionWorkflow session = client.newWorkflowStub(SessionWorkflow.class, WorkflowOptions.newBuilder()
          .setWorkflowId(WorkflowIds.session(id)).setTaskQueue(TaskQueues.CONTROL).build());
      WorkflowClient.start(session::run, new SessionStart(new SessionSpec(id, "usr_1", CLUSTER,
          "registry.example.com/jupyter:1", 8888, "/", "gshare.lab.example.com",
          "https://gshare.example.com/internal/connect/verify", null, MaxRuntimeAction.PAUSE, null, null),
          SessionSnapshot.creating(ON_NODE_1)));
      for (int i = 0; i < 100 && session.view().state() != SessionState.RUNNING; i++) {
        env.sleep(Duration.ofMillis(500));
      }
    }

    NodeDrainWorkflow drain = client.newWorkflowStub(NodeDrainWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(WorkflowIds.nodeDrain("nod_1")).setTaskQueue(TaskQueues.CONTROL).build());
    OperationProgress done = drain.drain(new DrainRequest("nod_1", CLUSTER, "gpu-1", DrainMode.MIGRATE, 600, null));

    assertThat(done.status()).isEqualTo(OperationStatus.COMPLETED);
    assertThat(attempts).containsEntry("ses_1", 2).containsEntry("ses_2", 1);
    assertThat(done.steps().get(1).detail()).contains("ses_1 moved from gpu-1 to gpu-2").contains("ses_2 moved");
    // Each session paused (settled) once and started twice: its create and the one resume elsewhere.
    assertThat(sessions.settled).containsEntry("ses_1", 1).containsEntry("ses_2", 1);
    assertThat(cluster.started).containsEntry("ses_1", 2).containsEntry("ses_2", 2);
    for (String id : List.of("ses_1", "ses_2")) {
      assertThat(client.newWorkflowStub(SessionWorkflow.class, WorkflowIds.session(id)).view().hostname()).isEqualTo("gpu-2");
    }
  }

  /** The control plane's side of sessions: placement answers the second node; counts settlements. */
  static class SessionsFake implements SessionControlActivities {
    final Map<String, Integer> settled = new ConcurrentHashMap<>();

    @Override public GpuPlacement place(String sessionId) {
      return ON_NODE_2;
    }
    @Override public void record(SessionRecord record) {}
    @Override public void markRunning(SessionRecord running) {}
    @Override public void settle(SessionRecord stopped) {
      settled.merge(stopped.sessionId(), 1, Integer::sum);
    }
  }

  /** The cluster's side of sessions: pods run at once on the node they were placed on; counts starts. */
  static class ClusterFake implements SessionClusterActivities {
    final Map<String, Integer> started = new ConcurrentHashMap<>();
    final List<String> deleted = new CopyOnWriteArrayList<>();

    @Override public void ensureObjects(SessionPod pod) {}
    @Override public PodState startPod(SessionPod pod) {
      started.merge(pod.sessionId(), 1, Integer::sum);
      return new PodState(PodPhase.RUNNING, "10.244.0.7", pod.placement().hostname());
    }
    @Override public PodState awaitRunning(String sessionId) {
      return new PodState(PodPhase.RUNNING, "10.244.0.7", "gpu-1");
    }
    @Override public PodState podState(String sessionId) {
      return null;
    }
    @Override public String checkpoint(String sessionId) {
      throw new UnsupportedOperationException("no CRIU in this test");
    }
    @Override public String buildCheckpointImage(CheckpointImage checkpoint) {
      throw new UnsupportedOperationException("no CRIU in this test");
    }
    @Override public void deleteObjects(String sessionId) {
      deleted.add(sessionId);
    }
    @Override public void applyRoute(SessionPod pod) {}
  }

  static class NodeFake implements NodeClusterActivities {
    @Override public void setUnschedulable(String hostname, boolean unschedulable) {}
    @Override public EvictionResult evictPods(EvictionRequest request) {
      return new EvictionResult(List.of(), 0, List.of());
    }
    @Override public void setDeviceCordon(String hostname, List<String> uuids) {}
  }
}
