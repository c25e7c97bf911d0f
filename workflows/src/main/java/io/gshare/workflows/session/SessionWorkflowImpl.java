package io.gshare.workflows.session;

import static io.gshare.workflows.common.Failures.rootMessage;

import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.Progress;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;

public class SessionWorkflowImpl implements SessionWorkflow {

  private static final Logger log = Workflow.getLogger(SessionWorkflowImpl.class);

  static final String PAUSE = "pause";
  static final String RESUME = "resume";
  static final String TERMINATE = "terminate";
  static final String CREDITS = "credits";
  static final String CHECK_POD = "check-pod";
  static final String MAX_RUNTIME = "max-runtime";
  // Steps of the operation a command shows (GET /api/v1/sessions/{id}).
  static final String CREATE_OBJECTS = "create the pod, service and ingress";
  static final String WAIT_RUNNING = "wait until it runs";
  static final String OPEN_BILLING = "open billing";
  static final String CHECKPOINT = "checkpoint";
  static final String DELETE_POD = "delete the pod";
  static final String SETTLE = "settle billing and release the GPUs";
  /** The user is warned this long before the max runtime acts (or at half the runtime, if shorter). */
  static final Duration WARN_BEFORE = Duration.ofMinutes(10);

  private final SessionControlActivities control = Workflow.newActivityStub(SessionControlActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          // No attempt limit: these write the control plane's own database, and a session must wait out an
          // outage there rather than fail with its billing window open and its GPUs held.
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
              .setMaximumInterval(Duration.ofSeconds(20)).build())
          .build());

  private SessionClusterActivities cluster;
  private SessionClusterActivities slowCluster;
  private SessionClusterActivities checkpointer;
  private SessionStart start;
  private String state;
  private GpuPlacement placement;
  private String url;
  private String pauseKind;
  private String checkpoint;
  private String warning;
  private String lastError;
  private String lastErrorType;
  private String podLostReason;
  private Duration runtimeUsed = Duration.ZERO;
  private long runningSince;
  private final Deque<String> commands = new ArrayDeque<>();
  /** What each awaited command left: its update answers with the state right after it, not a later one. */
  private final java.util.Map<Long, SessionView> outcomes = new java.util.HashMap<>();
  /** The commands an update waits on (signals and timers are not awaited, so nothing is kept for them). */
  private final java.util.Set<Long> awaited = new java.util.HashSet<>();
  private long commandsReceived;
  private long commandsDone;
  private Progress operation;

  @Override
  public SessionView run(SessionStart input) {
    start = input;
    state = input.state();
    placement = input.placement();
    checkpoint = input.checkpoint();
    pauseKind = "paused".equals(state) ? (checkpoint != null ? "lossless" : "cold") : null;
    runtimeUsed = input.runtimeUsed() == null ? Duration.ZERO : input.runtimeUsed();
    RetryOptions clusterRetries = RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
        .setMaximumInterval(Duration.ofSeconds(20)).setMaximumAttempts(8)
        .setDoNotRetry("PodFailed").build();
    // No schedule-to-start limit: a worker that dies leaves the task queued for its replacement.
    cluster = Workflow.newActivityStub(SessionClusterActivities.class, ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.cluster(input.clusterId()))
        .setStartToCloseTimeout(Duration.ofSeconds(60))
        .setScheduleToCloseTimeout(Duration.ofMinutes(20))
        .setRetryOptions(clusterRetries)
        .build());
    slowCluster = Workflow.newActivityStub(SessionClusterActivities.class, ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.cluster(input.clusterId()))
        .setStartToCloseTimeout(Duration.ofMinutes(15))
        .setHeartbeatTimeout(Duration.ofSeconds(30))
        .setScheduleToCloseTimeout(Duration.ofMinutes(30))
        .setRetryOptions(clusterRetries)
        .build());
    // A checkpoint dumps GPU memory in one long kubelet call (no heartbeat); a second try writes a second
    // archive, so one retry at most.
    checkpointer = Workflow.newActivityStub(SessionClusterActivities.class, ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.cluster(input.clusterId()))
        .setStartToCloseTimeout(Duration.ofMinutes(12))
        .setScheduleToCloseTimeout(Duration.ofMinutes(30))
        .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(5)).setMaximumAttempts(2)
            .setDoNotRetry("CheckpointImpossible").build())
        .build());

    if ("creating".equals(state)) {
      if (!create("create", null)) {
        return view();
      }
    } else if ("running".equals(state)) {
      // Recovered or continued: make sure the pod is there (an earlier attempt's objects are found) and billing open.
      if (!create("recover", checkpoint)) {
        return view();
      }
    }

    while (!terminal()) {
      if ("running".equals(state)) {
        awaitWhileRunning();
      } else {
        Workflow.await(() -> !commands.isEmpty());
      }
      if (commands.isEmpty()) {
        continue;
      }
      String command = commands.peekFirst();
      carryOut(command);
      commands.pollFirst();
      commandsDone++;
      if (awaited.remove(commandsDone)) {
        outcomes.put(commandsDone, view());
      }
      if (!terminal() && commands.isEmpty() && Workflow.getInfo().isContinueAsNewSuggested()) {
        Workflow.await(Workflow::isEveryHandlerFinished);
        Workflow.continueAsNew(start.withState(state, placement, usedSoFar(), checkpoint));
      }
    }
    Workflow.await(Workflow::isEveryHandlerFinished);
    return view();
  }

  /**
   * Runs until a command arrives or the max runtime acts; warns the user before it does. The runtime is
   * counted from the last start or resume, across continue-as-new and recovery.
   */
  private void awaitWhileRunning() {
    if (start.maxRuntime() == null) {
      Workflow.await(() -> !commands.isEmpty());
      return;
    }
    Duration left = start.maxRuntime().minus(usedSoFar());
    Duration warnAhead = WARN_BEFORE.compareTo(start.maxRuntime().dividedBy(2)) < 0 ? WARN_BEFORE : start.maxRuntime().dividedBy(2);
    if (warning == null && left.compareTo(warnAhead) > 0) {
      if (Workflow.await(left.minus(warnAhead), () -> !commands.isEmpty())) {
        return;
      }
      left = start.maxRuntime().minus(usedSoFar());
    }
    if (warning == null) {
      Instant at = Instant.ofEpochMilli(Workflow.currentTimeMillis()).plus(left);
      warning = "the session reaches its max runtime at " + at + " and will then "
          + ("terminate".equals(start.maxRuntimeAction()) ? "end" : "pause");
      control.record(SessionRecord.state(start.sessionId(), state, warning));
    }
    if (!Workflow.await(left.isNegative() ? Duration.ZERO : left, () -> !commands.isEmpty())) {
      log.info("session {} reached its max runtime", start.sessionId());
      enqueue("terminate".equals(start.maxRuntimeAction()) ? TERMINATE : MAX_RUNTIME);
    }
  }

  private void carryOut(String command) {
    lastError = null;
    lastErrorType = null;
    switch (command) {
      case PAUSE, CREDITS, MAX_RUNTIME -> {
        if ("running".equals(state)) {
          pause(CREDITS.equals(command) ? "credits exhausted" : MAX_RUNTIME.equals(command) ? "max runtime reached" : null);
        }
      }
      case CHECK_POD -> {
        if ("running".equals(state)) {
          checkPod();
        }
      }
      case RESUME -> {
        if ("paused".equals(state)) {
          resumeSession();
        }
      }
      case TERMINATE -> terminateSession();
      default -> throw new IllegalStateException("unknown command " + command);
    }
  }

  /** Creates the session's objects and waits until it runs; false when it failed for good. */
  private boolean create(String kind, String restoreFrom) {
    operation = new Progress(WorkflowIds.session(start.sessionId()), "session." + kind, start.sessionId(),
        List.of(CREATE_OBJECTS, WAIT_RUNNING, OPEN_BILLING));
    String previous = state;
    try {
      operation.start(CREATE_OBJECTS);
      cluster.ensureObjects(new SessionPod(start.sessionId(), start.userId(), placement, start.imageReference(),
          start.port(), start.path(), start.sessionDomain(), start.authUrl(), restoreFrom, start.volume()));
      operation.done(CREATE_OBJECTS, "on " + placement.hostname());
      operation.start(WAIT_RUNNING);
      PodState pod = slowCluster.awaitRunning(start.sessionId());
      operation.done(WAIT_RUNNING, "pod " + pod.phase() + " at " + pod.podIp() + " on " + pod.hostname());
      operation.start(OPEN_BILLING);
      url = "https://" + start.sessionDomain() + "/s/" + start.sessionId() + "/";
      state = "running";
      runningSince = Workflow.currentTimeMillis();
      control.markRunning(new SessionRecord(start.sessionId(), "running", restoreFrom == null ? null : "restored from " + restoreFrom,
          url, placement.nodeId(), placement.hostname(), null, null));
      operation.done(OPEN_BILLING, null);
      operation.complete();
      return true;
    } catch (ActivityFailure failure) {
      String why = rootMessage(failure);
      log.warn("session {} could not {}: {}", start.sessionId(), kind, why);
      operation.fail(why);
      if ("resuming".equals(previous)) {
        // A resume that cannot start goes back to paused, its GPUs given back.
        lastError = "resume failed: " + why;
        lastErrorType = "resume_failed";
        cleanUp(SessionRecord.state(start.sessionId(), "paused", lastError));
        state = "paused";
        return false;
      }
      cleanUp(SessionRecord.state(start.sessionId(), "failed", why));
      state = "failed";
      lastError = why;
      return false;
    }
  }

  /** A report said the pod failed or vanished: believe the cluster, not the report. */
  private void checkPod() {
    String reported = podLostReason;
    podLostReason = null;
    PodState pod = cluster.podState(start.sessionId());
    if (pod != null && "Running".equals(pod.phase())) {
      log.info("session {}: reported lost ({}) but its pod runs", start.sessionId(), reported);
      return;
    }
    String why = pod == null ? "the pod is gone" : "the pod " + pod.phase().toLowerCase();
    pause(why + (reported == null ? "" : " (" + reported + ")") + "; resume to start it again", false);
  }

  private void pause(String reason) {
    pause(reason, true);
  }

  private void pause(String reason, boolean podAlive) {
    operation = new Progress(WorkflowIds.session(start.sessionId()), "session.pause", start.sessionId(),
        List.of(CHECKPOINT, DELETE_POD, SETTLE));
    state = "pausing";
    control.record(SessionRecord.state(start.sessionId(), "pausing", reason));
    operation.start(CHECKPOINT);
    String image = null;
    if (!podAlive) {
      operation.done(CHECKPOINT, "cold: the pod is no longer running");
    } else if (!placement.losslessPause()) {
      operation.done(CHECKPOINT, "cold: the node has no CRIU and cuda-checkpoint");
    } else if (start.checkpointTarget() == null) {
      operation.done(CHECKPOINT, "cold: the cluster has no checkpoint_registry (or no builder image is configured)");
    } else {
      try {
        String archive = checkpointer.checkpoint(start.sessionId());
        CheckpointTarget target = start.checkpointTarget();
        image = slowCluster.buildCheckpointImage(new CheckpointImage(start.sessionId(), placement.hostname(), archive,
            target.imageFor(start.sessionId(), Workflow.currentTimeMillis()), target.builderImage()));
        operation.done(CHECKPOINT, "lossless: " + image);
      } catch (ActivityFailure e) {
        operation.done(CHECKPOINT, "checkpoint failed (" + rootMessage(e) + "): pausing cold");
      }
    }
    runtimeUsed = usedSoFar();
    operation.start(DELETE_POD);
    String leftBehind = deleteObjects();
    operation.done(DELETE_POD, leftBehind);
    operation.start(SETTLE);
    pauseKind = image == null ? "cold" : "lossless";
    control.settle(new SessionRecord(start.sessionId(), "paused", joined(reason, leftBehind), null, null, null, pauseKind,
        image));
    operation.done(SETTLE, null);
    placement = null;
    checkpoint = image;
    url = null;
    state = "paused";
    operation.complete();
  }

  private void resumeSession() {
    state = "resuming";
    control.record(SessionRecord.state(start.sessionId(), "resuming", null));
    try {
      placement = control.place(start.sessionId());
    } catch (ActivityFailure e) {
      state = "paused";
      lastError = "resume refused: " + rootMessage(e);
      lastErrorType = e.getCause() instanceof ApplicationFailure app ? app.getType() : "resume_failed";
      control.record(SessionRecord.state(start.sessionId(), "paused", lastError));
      return;
    }
    // The max runtime bounds one run: a paused session gave its GPUs back, a resumed one starts counting anew.
    runtimeUsed = Duration.ZERO;
    if (create("resume", checkpoint)) {
      checkpoint = null;
      pauseKind = null;
      warning = null;
    }
  }

  private void terminateSession() {
    operation = new Progress(WorkflowIds.session(start.sessionId()), "session.terminate", start.sessionId(),
        List.of(DELETE_POD, SETTLE));
    state = "terminating";
    control.record(SessionRecord.state(start.sessionId(), "terminating", null));
    operation.start(DELETE_POD);
    String leftBehind = deleteObjects();
    operation.done(DELETE_POD, leftBehind);
    operation.start(SETTLE);
    // Postgres first: an update answered on "terminated" must find the row saying so.
    control.settle(SessionRecord.state(start.sessionId(), "terminated", leftBehind));
    operation.done(SETTLE, null);
    placement = null;
    url = null;
    state = "terminated";
    operation.complete();
  }

  /** After a failed create: nothing left in the cluster, nothing billed, nothing held, then {@code outcome} recorded. */
  private void cleanUp(SessionRecord outcome) {
    String leftBehind = deleteObjects();
    control.settle(new SessionRecord(outcome.sessionId(), outcome.state(), joined(outcome.reason(), leftBehind), null, null,
        null, null, null));
    placement = null;
  }

  /**
   * Deletes the session's objects. A cluster that stays unreachable must not keep the session billing
   * or holding GPUs: what is left behind is said (and returned) and the caller settles anyway.
   */
  private String deleteObjects() {
    try {
      cluster.deleteObjects(start.sessionId());
      return null;
    } catch (ActivityFailure e) {
      String left = "its pod could not be deleted from cluster " + start.clusterId() + " (" + rootMessage(e)
          + "): it may still run there";
      log.warn("session {}: {}", start.sessionId(), left);
      return left;
    }
  }

  private static String joined(String reason, String note) {
    return note == null ? reason : reason == null ? note : reason + "; " + note;
  }

  private Duration usedSoFar() {
    return "running".equals(state) && runningSince > 0
        ? runtimeUsed.plusMillis(Workflow.currentTimeMillis() - runningSince) : runtimeUsed;
  }

  private boolean terminal() {
    return "terminated".equals(state) || "failed".equals(state);
  }

  private long enqueue(String command) {
    commands.addLast(command);
    return ++commandsReceived;
  }

  private SessionView settleAfter(String command) {
    long number = enqueue(command);
    awaited.add(number);
    Workflow.await(() -> commandsDone >= number || terminal());
    SessionView outcome = outcomes.remove(number);
    return outcome == null ? view() : outcome;
  }

  @Override
  public SessionView pause() {
    return settleAfter(PAUSE);
  }

  @Override
  public void validatePause() {
    refuseWhenEnded("pause");
  }

  @Override
  public SessionView resume() {
    return settleAfter(RESUME);
  }

  @Override
  public void validateResume() {
    refuseWhenEnded("resume");
  }

  @Override
  public SessionView terminate() {
    if (terminal()) {
      return view();
    }
    return settleAfter(TERMINATE);
  }

  @Override
  public void validateTerminate() {
    // Terminating an ended session is a no-op, never an error.
  }

  @Override
  public void creditsExhausted() {
    if ("running".equals(state) && !commands.contains(CREDITS)) {
      enqueue(CREDITS);
    }
  }

  @Override
  public void podLost(String reason) {
    if ("running".equals(state) && !commands.contains(CHECK_POD)) {
      podLostReason = reason;
      enqueue(CHECK_POD);
    }
  }

  private void refuseWhenEnded(String what) {
    if (terminal() || commands.contains(TERMINATE) || "terminating".equals(state)) {
      throw new IllegalStateException("the session is " + state + "; it cannot " + what);
    }
  }

  @Override
  public SessionView view() {
    return new SessionView(start == null ? null : start.sessionId(), state, start == null ? null : start.clusterId(),
        placement == null ? null : placement.hostname(), url, pauseKind, warning, lastError, lastErrorType);
  }

  @Override
  public OperationProgress progress() {
    return operation == null ? null : operation.snapshot();
  }
}
