package io.gshare.workflows.node;

import static io.gshare.workflows.common.Failures.rootMessage;

import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.Progress;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.session.SessionDrainOrder;
import io.gshare.workflows.session.SessionDrainOutcome;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The drain, step by step (each idempotent, so a retried activity or a replaced worker repeats
 * nothing): Postgres first, so placement skips the node at once, then {@code spec.unschedulable} in the
 * cluster; the sessions, a few at a time, each through its own workflow; then the other pods through
 * the Eviction API until the deadline. A session not settled or a pod not evicted by the deadline fails
 * the drain with their names; the node stays cordoned and draining, and a second drain picks up there.
 */
public class NodeDrainWorkflowImpl implements NodeDrainWorkflow {

  static final String CORDON = "cordon the node";
  static final String SESSIONS = "settle the sessions on it";
  static final String EVICT = "evict the other pods";
  static final String DRAINED = "mark drained";
  /** Sessions moved at once: each migration checkpoints and starts a pod on the same cluster. */
  static final int PARALLEL_SESSIONS = 4;
  /** Eviction gets this long past the deadline to return what it found at the deadline. */
  static final Duration REPORT_MARGIN = Duration.ofSeconds(30);

  private final NodeDrainActivities control = Workflow.newActivityStub(NodeDrainActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
              .setMaximumInterval(Duration.ofSeconds(20)).build())
          .build());

  private Progress progress;

  @Override
  public OperationProgress drain(DrainRequest request) {
    progress = new Progress(WorkflowIds.nodeDrain(request.nodeId()), "node.drain", request.nodeId(),
        List.of(CORDON, SESSIONS, EVICT, DRAINED));
    long deadline = Workflow.currentTimeMillis() + Duration.ofSeconds(request.deadlineSeconds()).toMillis();
    NodeClusterActivities cluster = clusterStub(request.clusterId(), remaining(deadline));
    try {
      progress.start(CORDON);
      control.markDraining(request.nodeId(), request.reason());
      cluster.setUnschedulable(request.hostname(), true);
      progress.done(CORDON, "spec.unschedulable set on " + request.hostname() + "; placement skips the node");

      progress.start(SESSIONS);
      List<String> sessions = control.sessionsOn(request.nodeId());
      Map<String, SessionDrainOutcome> outcomes = settle(sessions,
          new SessionDrainOrder(request.nodeId(), request.hostname(), request.mode(), request.reason()), deadline);
      if (CancellationScope.current().isCancelRequested()) {
        throw new CanceledFailure("uncordoned while draining");
      }
      List<String> unsettled = outcomes.values().stream().filter(o -> !o.settled())
          .map(o -> o.sessionId() + ": " + o.detail()).toList();
      String summary = sessions.isEmpty() ? "no session on the node" : outcomes.values().stream()
          .map(o -> o.sessionId() + " " + o.detail()).collect(Collectors.joining("; "));
      if (!unsettled.isEmpty()) {
        throw failure("sessions not settled by the deadline: " + String.join("; ", unsettled)
            + ". The node stays cordoned; drain again to go on", "node_drain_incomplete");
      }
      progress.done(SESSIONS, summary);

      progress.start(EVICT);
      EvictionResult evicted = clusterStub(request.clusterId(), remaining(deadline).plus(REPORT_MARGIN))
          .evictPods(new EvictionRequest(request.hostname(), deadline));
      if (!evicted.blocked().isEmpty()) {
        throw failure("pods not evicted by the deadline: " + String.join("; ", evicted.blocked())
            + ". The node stays cordoned; relax the PodDisruptionBudget or drain again with a longer deadline",
            "node_drain_incomplete");
      }
      progress.done(EVICT, evicted.evicted().size() + " pod(s) evicted" + (evicted.evicted().isEmpty() ? ""
          : " (" + String.join(", ", evicted.evicted()) + ")") + "; " + evicted.daemonSetPods()
          + " DaemonSet pod(s) stay");

      progress.start(DRAINED);
      control.markDrained(request.nodeId());
      progress.done(DRAINED, "the node can now be removed from the cluster (kubectl delete node " + request.hostname()
          + ") and, once offline, deleted in gShare");
      progress.complete();
      record();
      return progress.snapshot();
    } catch (ActivityFailure | CanceledFailure e) {
      if (CancellationScope.current().isCancelRequested()) {
        // Uncordoned while draining: what moved stays where it is; say where the drain stopped.
        progress.fail("cancelled: the node was uncordoned while draining; sessions already moved stay where they are");
        record();
        throw e instanceof CanceledFailure canceled ? canceled : new CanceledFailure("uncordoned while draining");
      }
      throw failure("drain failed: " + rootMessage(e) + ". The node stays cordoned; drain again to go on",
          "node_drain_failed");
    }
  }

  /**
   * Sends each session its order, at most {@value #PARALLEL_SESSIONS} at once, and collects what each
   * did. A session whose order did not finish by the deadline is reported unsettled, not retried forever.
   */
  private Map<String, SessionDrainOutcome> settle(List<String> sessions, SessionDrainOrder order, long deadline) {
    Map<String, SessionDrainOutcome> outcomes = new LinkedHashMap<>();
    List<Promise<SessionDrainOutcome>> inFlight = new ArrayList<>();
    for (String session : sessions) {
      if (inFlight.size() >= PARALLEL_SESSIONS) {
        Promise.anyOf(inFlight).get();
        inFlight.removeIf(Promise::isCompleted);
      }
      NodeDrainActivities stub = sessionStub(remaining(deadline));
      inFlight.add(Async.function(stub::drainSession, session, order).handle((outcome, failure) -> {
        SessionDrainOutcome result = failure == null ? outcome
            : new SessionDrainOutcome(session, null, order.hostname(), null, null, "not settled: " + rootMessage(failure));
        outcomes.put(session, result);
        return result;
      }));
    }
    Promise.allOf(inFlight).get();
    Map<String, SessionDrainOutcome> ordered = new LinkedHashMap<>();
    sessions.forEach(s -> ordered.put(s, outcomes.get(s)));
    return ordered;
  }

  /** Time left until the deadline; at least a second, so a step started at the deadline fails by timeout rather than at once. */
  private static Duration remaining(long deadline) {
    Duration left = Duration.ofMillis(deadline - Workflow.currentTimeMillis());
    return left.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : left;
  }

  /** One session's order may take a lossless checkpoint and a pod start: it heartbeats, and ends at the deadline. */
  private static NodeDrainActivities sessionStub(Duration untilDeadline) {
    return Workflow.newActivityStub(NodeDrainActivities.class, ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.CONTROL)
        .setStartToCloseTimeout(untilDeadline)
        .setScheduleToCloseTimeout(untilDeadline)
        .setHeartbeatTimeout(Duration.ofSeconds(60))
        .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(2))
            .setMaximumInterval(Duration.ofSeconds(30)).build())
        .build());
  }

  /**
   * The cluster's worker, until the deadline: eviction heartbeats while it retries refusals; a cluster
   * that cannot be reached fails the step when the deadline passes.
   */
  static NodeClusterActivities clusterStub(String clusterId, Duration untilDeadline) {
    return Workflow.newActivityStub(NodeClusterActivities.class, ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.cluster(clusterId))
        .setStartToCloseTimeout(untilDeadline)
        .setScheduleToCloseTimeout(untilDeadline)
        .setHeartbeatTimeout(Duration.ofSeconds(30))
        .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
            .setMaximumInterval(Duration.ofSeconds(10)).build())
        .build());
  }

  /** Records the operation as failed and gives the failure to throw. */
  private ApplicationFailure failure(String why, String type) {
    progress.fail(why);
    record();
    return ApplicationFailure.newNonRetryableFailure(why, type);
  }

  /** Stores where the operation stands, even from a cancelled drain. */
  private void record() {
    Workflow.newDetachedCancellationScope(() -> control.recordOperation(progress.snapshot())).run();
  }

  @Override
  public OperationProgress progress() {
    return progress == null ? null : progress.snapshot();
  }
}
