package io.gshare.workflows.session;

import static io.gshare.workflows.common.Failures.rootMessage;

import io.gshare.workflows.common.FailureTypes;
import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.Progress;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;

/**
 * A session's life as one workflow. Its state is the spec it started with plus where it stands (one
 * {@link SessionSnapshot} across continue-as-new); the words users read come from {@link SessionTexts}.
 */
public class SessionWorkflowImpl implements SessionWorkflow {

  private static final Logger log = Workflow.getLogger(SessionWorkflowImpl.class);

  /** What the loop carries out, in arrival order: the users' pause, resume and terminate, and what else asks it to. */
  enum Command { PAUSE, RESUME, TERMINATE, CREDITS, CHECK_POD, MAX_RUNTIME, DRAIN, IDLE, REROUTE, GPU_FAULT }

  /**
   * A command in the loop's queue with what came with it: a reason (idle, GPU fault, pod reported lost), a drain
   * order or a reroute. Once carried out it keeps what it left for the handler waiting on it: the session right after
   * it (not a later state) and, for a drain or a reroute, its outcome. The handler holds it; the loop only drops it.
   */
  private static final class Queued {
    final Command command;
    final String reason;
    final SessionDrainOrder drain;
    final SessionReroute reroute;
    boolean done;
    SessionView after;
    SessionDrainOutcome drained;
    SessionRerouteOutcome rerouted;

    private Queued(Command command, String reason, SessionDrainOrder drain, SessionReroute reroute) {
      this.command = command;
      this.reason = reason;
      this.drain = drain;
      this.reroute = reroute;
    }

    static Queued of(Command command) {
      return new Queued(command, null, null, null);
    }

    static Queued because(Command command, String reason) {
      return new Queued(command, reason, null, null);
    }

    static Queued drain(SessionDrainOrder order) {
      return new Queued(Command.DRAIN, null, order, null);
    }

    static Queued reroute(SessionReroute change) {
      return new Queued(Command.REROUTE, null, null, change);
    }
  }

  /** The pause or resume under way plus one waiting: more are refused (operation_in_progress). */
  static final int MAX_USER_COMMANDS_QUEUED = 2;

  // Steps of the operation a command shows (GET /api/v1/sessions/{id}).
  static final String CREATE_OBJECTS = "create the pod, service and ingress";
  static final String WAIT_RUNNING = "wait until it runs";
  static final String OPEN_BILLING = "open billing";
  static final String CHECKPOINT = "checkpoint";
  static final String DELETE_POD = "delete the pod";
  static final String SETTLE = "settle billing and release the GPUs";
  /** The user is warned this long before the max runtime acts (or at half the runtime, if shorter). */
  static final Duration WARN_BEFORE = Duration.ofMinutes(10);

  /**
   * The lean lifecycle (version 1): the control plane's own writes are local activities (the control
   * worker runs this workflow, so they need no task-queue round trip: one marker event each instead of
   * an activity's three plus a workflow task), and the pod is created and awaited in one activity.
   * Histories recorded before it replay on the default version.
   */
  static final String LEAN_LIFECYCLE = "lean-lifecycle";
  static final int LEAN = 1;

  /**
   * Moving a live session to its cluster's new session domain (the reroute update). Only an execution that
   * receives the update runs it, so no recorded history meets it; the marker says from which version on.
   */
  static final String REROUTE_VERSION = "reroute";
  static final int REROUTE = 1;
  /** Pausing off a card that reported a fatal Xid (the gpuFault signal); only executions that receive it run it. */
  static final String GPU_FAULT_VERSION = "gpu-fault";
  static final int GPU_FAULT = 1;

  /** Retries of the control plane's own writes: no attempt limit (see {@link #controlStub}). */
  private static final RetryOptions CONTROL_RETRIES = RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
      .setMaximumInterval(Duration.ofSeconds(20)).build();

  private SessionControlActivities control;
  private boolean lean;

  private SessionClusterActivities cluster;
  private SessionSpec spec;
  private SessionState state;
  private GpuPlacement placement;
  private String url;
  private PauseKind pauseKind;
  private String checkpoint;
  private String warning;
  private String lastError;
  private String lastErrorType;
  private Duration runtimeUsed = Duration.ZERO;
  private long runningSince;
  /** The command under way (first) and those waiting behind it, in arrival order. */
  private final Deque<Queued> commands = new ArrayDeque<>();
  private Progress operation;

  /**
   * One stub for the session's cluster, with options per activity: most calls are short; waiting for
   * Running and building a checkpoint image heartbeat; a checkpoint dumps GPU memory in one long kubelet
   * call (no heartbeat) and a second try writes a second archive, so it gets one retry at most. No
   * schedule-to-start limit: a worker that dies leaves the task queued for its replacement.
   */
  static SessionClusterActivities clusterStub(String clusterId) {
    RetryOptions clusterRetries = RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
        .setMaximumInterval(Duration.ofSeconds(20)).setMaximumAttempts(8)
        .setDoNotRetry(FailureTypes.POD_FAILED).build();
    ActivityOptions quick = ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.cluster(clusterId))
        .setStartToCloseTimeout(Duration.ofSeconds(60))
        .setScheduleToCloseTimeout(Duration.ofMinutes(20))
        .setRetryOptions(clusterRetries)
        .build();
    ActivityOptions slow = ActivityOptions.newBuilder(quick)
        .setStartToCloseTimeout(Duration.ofMinutes(15))
        .setHeartbeatTimeout(Duration.ofSeconds(30))
        .setScheduleToCloseTimeout(Duration.ofMinutes(30))
        .build();
    ActivityOptions checkpoint = ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.cluster(clusterId))
        .setStartToCloseTimeout(Duration.ofMinutes(12))
        .setScheduleToCloseTimeout(Duration.ofMinutes(30))
        .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(5)).setMaximumAttempts(2)
            .setDoNotRetry(FailureTypes.CHECKPOINT_IMPOSSIBLE).build())
        .build();
    return Workflow.newActivityStub(SessionClusterActivities.class, quick, Map.of(
        SessionClusterActivities.AWAIT_RUNNING, slow,
        SessionClusterActivities.START_POD, slow,
        SessionClusterActivities.BUILD_CHECKPOINT_IMAGE, slow,
        SessionClusterActivities.CHECKPOINT, checkpoint));
  }

  /**
   * The control plane's activities: no attempt limit, because they write the control plane's own
   * database and a session must wait out an outage there rather than fail with its billing window
   * open and its GPUs held. Local in the lean lifecycle, on {@code gshare-control} before it.
   */
  static SessionControlActivities controlStub(boolean local) {
    if (local) {
      return Workflow.newLocalActivityStub(SessionControlActivities.class, LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(CONTROL_RETRIES)
          .build());
    }
    return Workflow.newActivityStub(SessionControlActivities.class, ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.CONTROL)
        .setStartToCloseTimeout(Duration.ofSeconds(30))
        .setRetryOptions(CONTROL_RETRIES)
        .build());
  }

  @Override
  public SessionView run(SessionStart input) {
    lean = Workflow.getVersion(LEAN_LIFECYCLE, Workflow.DEFAULT_VERSION, LEAN) == LEAN;
    control = controlStub(lean);
    spec = input.spec();
    SessionSnapshot snapshot = input.snapshot();
    state = snapshot.state();
    placement = snapshot.placement();
    checkpoint = snapshot.checkpoint();
    pauseKind = state == SessionState.PAUSED ? (checkpoint != null ? PauseKind.LOSSLESS : PauseKind.COLD) : null;
    runtimeUsed = snapshot.runtimeUsed() == null ? Duration.ZERO : snapshot.runtimeUsed();
    cluster = clusterStub(spec.clusterId());

    if (state == SessionState.CREATING) {
      if (!create("create", null)) {
        return view();
      }
    } else if (state == SessionState.RUNNING) {
      // Recovered or continued: make sure the pod is there (an earlier attempt's objects are found) and billing open.
      if (!create("recover", checkpoint)) {
        return view();
      }
    }

    while (!terminal()) {
      if (state == SessionState.RUNNING) {
        awaitWhileRunning();
      } else {
        Workflow.await(() -> !commands.isEmpty());
      }
      if (commands.isEmpty()) {
        continue;
      }
      Queued next = commands.peekFirst();
      switch (next.command) {
        case DRAIN -> next.drained = drainOff(next.drain);
        case REROUTE -> next.rerouted = moveTo(next.reroute);
        default -> carryOut(next);
      }
      commands.pollFirst();
      next.after = view();
      next.done = true;
      if (!terminal() && commands.isEmpty() && Workflow.getInfo().isContinueAsNewSuggested()) {
        Workflow.await(Workflow::isEveryHandlerFinished);
        Workflow.continueAsNew(new SessionStart(spec, new SessionSnapshot(state, placement, usedSoFar(), checkpoint)));
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
    if (spec.maxRuntime() == null) {
      Workflow.await(() -> !commands.isEmpty());
      return;
    }
    Duration left = spec.maxRuntime().minus(usedSoFar());
    Duration warnAhead = WARN_BEFORE.compareTo(spec.maxRuntime().dividedBy(2)) < 0 ? WARN_BEFORE : spec.maxRuntime().dividedBy(2);
    if (warning == null && left.compareTo(warnAhead) > 0) {
      if (Workflow.await(left.minus(warnAhead), () -> !commands.isEmpty())) {
        return;
      }
      left = spec.maxRuntime().minus(usedSoFar());
    }
    if (warning == null) {
      Instant at = Instant.ofEpochMilli(Workflow.currentTimeMillis()).plus(left);
      warning = SessionTexts.maxRuntimeWarning(at, spec.maxRuntimeAction());
      control.record(SessionRecord.state(spec.sessionId(), state, warning));
    }
    if (!Workflow.await(left.isNegative() ? Duration.ZERO : left, () -> !commands.isEmpty())) {
      log.info("session {} reached its max runtime", spec.sessionId());
      enqueue(Queued.of(spec.maxRuntimeAction() == MaxRuntimeAction.TERMINATE ? Command.TERMINATE : Command.MAX_RUNTIME));
    }
  }

  private void carryOut(Queued queued) {
    lastError = null;
    lastErrorType = null;
    Command command = queued.command;
    switch (command) {
      case PAUSE, CREDITS, MAX_RUNTIME -> {
        if (state == SessionState.RUNNING) {
          pause(SessionTexts.pauseReason(command == Command.CREDITS, command == Command.MAX_RUNTIME));
        }
      }
      case IDLE -> {
        if (state == SessionState.RUNNING) {
          pause(queued.reason);
        }
      }
      case GPU_FAULT -> {
        Workflow.getVersion(GPU_FAULT_VERSION, Workflow.DEFAULT_VERSION, GPU_FAULT);
        if (state == SessionState.RUNNING) {
          pause(queued.reason);
        }
      }
      case CHECK_POD -> {
        if (state == SessionState.RUNNING) {
          checkPod(queued.reason);
        }
      }
      case DRAIN, REROUTE -> throw new IllegalStateException(command + " has an outcome of its own");
      case RESUME -> {
        if (state == SessionState.PAUSED) {
          resumeSession();
        }
      }
      case TERMINATE -> terminateSession();
    }
  }

  /** Creates the session's objects and waits until it runs; false when it failed for good. */
  private boolean create(String kind, String restoreFrom) {
    operation = new Progress(WorkflowIds.session(spec.sessionId()), "session." + kind, spec.sessionId(),
        List.of(CREATE_OBJECTS, WAIT_RUNNING, OPEN_BILLING));
    SessionState previous = state;
    try {
      operation.start(CREATE_OBJECTS);
      SessionPod objects = objects(restoreFrom);
      PodState pod;
      if (lean) {
        operation.start(WAIT_RUNNING);
        pod = cluster.startPod(objects);
        operation.done(CREATE_OBJECTS, "on " + placement.hostname());
      } else {
        cluster.ensureObjects(objects);
        operation.done(CREATE_OBJECTS, "on " + placement.hostname());
        operation.start(WAIT_RUNNING);
        pod = cluster.awaitRunning(spec.sessionId());
      }
      operation.done(WAIT_RUNNING, SessionTexts.running(pod));
      operation.start(OPEN_BILLING);
      url = urlOf(spec);
      state = SessionState.RUNNING;
      runningSince = Workflow.currentTimeMillis();
      control.markRunning(new SessionRecord(spec.sessionId(), SessionState.RUNNING, SessionTexts.restoredFrom(restoreFrom),
          url, placement.nodeId(), placement.hostname(), null, null));
      operation.done(OPEN_BILLING, null);
      operation.complete();
      return true;
    } catch (ActivityFailure failure) {
      String why = rootMessage(failure);
      log.warn("session {} could not {}: {}", spec.sessionId(), kind, why);
      operation.fail(why);
      if (previous == SessionState.RESUMING) {
        // A resume that cannot start goes back to paused, its GPUs given back.
        lastError = "resume failed: " + why;
        lastErrorType = FailureTypes.RESUME_FAILED;
        cleanUp(SessionRecord.state(spec.sessionId(), SessionState.PAUSED, lastError));
        state = SessionState.PAUSED;
        return false;
      }
      cleanUp(SessionRecord.state(spec.sessionId(), SessionState.FAILED, why));
      state = SessionState.FAILED;
      lastError = why;
      return false;
    }
  }

  private SessionPod objects(String restoreFrom) {
    return new SessionPod(spec.sessionId(), spec.userId(), placement, spec.imageReference(), spec.port(), spec.path(),
        spec.sessionDomain(), spec.authUrl(), restoreFrom, spec.volume(), spec.route(), spec.signInUrl());
  }

  private static String urlOf(SessionSpec spec) {
    // The same string as before urlForm existed when the spec has none: recorded histories replay unchanged.
    return spec.url();
  }

  /**
   * Takes the cluster's new domain and routing into the spec (a resume, a migration and a continue-as-new carry it
   * on); a running session's route is rewritten at once and its URL recorded. A route that cannot be written leaves
   * the spec changed (the next start uses it) and says why; the update answers either way.
   */
  private SessionRerouteOutcome moveTo(SessionReroute change) {
    Workflow.getVersion(REROUTE_VERSION, Workflow.DEFAULT_VERSION, REROUTE);
    spec = spec.rerouted(change);
    if (state != SessionState.RUNNING || placement == null) {
      return new SessionRerouteOutcome(spec.sessionId(), state, url, "not running: it starts on "
          + spec.sessionDomain() + " when resumed", true);
    }
    try {
      cluster.applyRoute(objects(null));
    } catch (ActivityFailure e) {
      lastError = "the new session domain " + spec.sessionDomain() + " could not be routed: " + rootMessage(e);
      lastErrorType = FailureTypes.REROUTE_FAILED;
      return new SessionRerouteOutcome(spec.sessionId(), state, url, lastError, false);
    }
    url = urlOf(spec);
    control.record(new SessionRecord(spec.sessionId(), SessionState.RUNNING, null, url, null, null, null, null));
    return new SessionRerouteOutcome(spec.sessionId(), state, url, "moved to " + url, true);
  }

  /** A report said the pod failed or vanished: believe the cluster, not the report. */
  private void checkPod(String reported) {
    PodState pod = cluster.podState(spec.sessionId());
    if (pod != null && pod.phase() == PodPhase.RUNNING) {
      log.info("session {}: reported lost ({}) but its pod runs", spec.sessionId(), reported);
      return;
    }
    pause(SessionTexts.podLost(pod, reported), false);
  }

  private void pause(String reason) {
    pause(reason, true);
  }

  private void pause(String reason, boolean podAlive) {
    operation = new Progress(WorkflowIds.session(spec.sessionId()), "session.pause", spec.sessionId(),
        List.of(CHECKPOINT, DELETE_POD, SETTLE));
    state = SessionState.PAUSING;
    control.record(SessionRecord.state(spec.sessionId(), SessionState.PAUSING, reason));
    operation.start(CHECKPOINT);
    String image = null;
    if (!podAlive) {
      operation.done(CHECKPOINT, SessionTexts.COLD_POD_GONE);
    } else if (!placement.losslessPause()) {
      operation.done(CHECKPOINT, SessionTexts.COLD_NO_CRIU);
    } else if (spec.checkpointTarget() == null) {
      operation.done(CHECKPOINT, SessionTexts.COLD_NO_REGISTRY);
    } else {
      try {
        String archive = cluster.checkpoint(spec.sessionId());
        CheckpointTarget target = spec.checkpointTarget();
        image = cluster.buildCheckpointImage(new CheckpointImage(spec.sessionId(), placement.hostname(), archive,
            target.imageFor(spec.sessionId(), Workflow.currentTimeMillis()), target.builderImage()));
        operation.done(CHECKPOINT, SessionTexts.lossless(image));
      } catch (ActivityFailure e) {
        operation.done(CHECKPOINT, SessionTexts.checkpointFailed(rootMessage(e)));
      }
    }
    runtimeUsed = usedSoFar();
    operation.start(DELETE_POD);
    String leftBehind = deleteObjects();
    operation.done(DELETE_POD, leftBehind);
    operation.start(SETTLE);
    pauseKind = image == null ? PauseKind.COLD : PauseKind.LOSSLESS;
    control.settle(new SessionRecord(spec.sessionId(), SessionState.PAUSED, joined(reason, leftBehind), null, null, null,
        pauseKind, image));
    operation.done(SETTLE, null);
    placement = null;
    checkpoint = image;
    url = null;
    state = SessionState.PAUSED;
    operation.complete();
  }

  private void resumeSession() {
    resumeSession(why -> "resume refused: " + why);
  }

  /** @param refusal the words a refused placement leaves on the paused session */
  private void resumeSession(UnaryOperator<String> refusal) {
    state = SessionState.RESUMING;
    control.record(SessionRecord.state(spec.sessionId(), SessionState.RESUMING, null));
    try {
      placement = control.place(spec.sessionId());
    } catch (ActivityFailure e) {
      state = SessionState.PAUSED;
      lastError = refusal.apply(rootMessage(e));
      lastErrorType = e.getCause() instanceof ApplicationFailure app ? app.getType() : FailureTypes.RESUME_FAILED;
      control.record(SessionRecord.state(spec.sessionId(), SessionState.PAUSED, lastError));
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

  /**
   * Leaves the drained node as the order says. Only a session running on that node acts; the node is
   * already out of placement (drained nodes are skipped), so the resume of a migration lands elsewhere.
   */
  private SessionDrainOutcome drainOff(SessionDrainOrder order) {
    lastError = null;
    lastErrorType = null;
    if (state != SessionState.RUNNING || placement == null || !order.nodeId().equals(placement.nodeId())) {
      return new SessionDrainOutcome(spec.sessionId(), state, null, null, null, SessionTexts.notOnNode(order, state));
    }
    String from = placement.hostname();
    String why = SessionTexts.drained(order);
    switch (order.mode()) {
      case TERMINATE -> {
        terminateSession(why);
        return new SessionDrainOutcome(spec.sessionId(), state, from, null, null, "terminated: " + why);
      }
      case PAUSE -> {
        pause(why);
        return new SessionDrainOutcome(spec.sessionId(), state, from, null, pauseKind,
            "paused " + pauseKind.wireName() + ": " + why);
      }
      default -> {
        pause(why);
        PauseKind kind = pauseKind;
        resumeSession(refused -> SessionTexts.drainedNoCapacity(order, refused));
        if (state == SessionState.RUNNING) {
          return new SessionDrainOutcome(spec.sessionId(), state, from, placement.hostname(), kind,
              SessionTexts.migrated(from, placement.hostname(), kind));
        }
        return new SessionDrainOutcome(spec.sessionId(), state, from, null, kind,
            "paused " + kind.wireName() + ": " + (lastError == null ? why : lastError));
      }
    }
  }

  private void terminateSession() {
    terminateSession(null);
  }

  private void terminateSession(String reason) {
    operation = new Progress(WorkflowIds.session(spec.sessionId()), "session.terminate", spec.sessionId(),
        List.of(DELETE_POD, SETTLE));
    state = SessionState.TERMINATING;
    control.record(SessionRecord.state(spec.sessionId(), SessionState.TERMINATING, reason));
    operation.start(DELETE_POD);
    String leftBehind = deleteObjects();
    operation.done(DELETE_POD, leftBehind);
    operation.start(SETTLE);
    // Postgres first: an update answered on "terminated" must find the row saying so.
    control.settle(SessionRecord.state(spec.sessionId(), SessionState.TERMINATED, joined(reason, leftBehind)));
    operation.done(SETTLE, null);
    placement = null;
    url = null;
    state = SessionState.TERMINATED;
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
      cluster.deleteObjects(spec.sessionId());
      return null;
    } catch (ActivityFailure e) {
      String left = SessionTexts.leftBehind(spec.clusterId(), rootMessage(e));
      log.warn("session {}: {}", spec.sessionId(), left);
      return left;
    }
  }

  private static String joined(String reason, String note) {
    return note == null ? reason : reason == null ? note : reason + "; " + note;
  }

  private Duration usedSoFar() {
    return state == SessionState.RUNNING && runningSince > 0
        ? runtimeUsed.plusMillis(Workflow.currentTimeMillis() - runningSince) : runtimeUsed;
  }

  private boolean terminal() {
    return state.ended();
  }

  private Queued enqueue(Queued queued) {
    commands.addLast(queued);
    return queued;
  }

  /** Waits until the command is carried out, or the session ended before it came up. */
  private Queued awaitDone(Queued queued) {
    Workflow.await(() -> queued.done || terminal());
    return queued;
  }

  private boolean queued(Command command) {
    return commands.stream().anyMatch(q -> q.command == command);
  }

  private SessionView settleAfter(Command command) {
    Queued queued = awaitDone(enqueue(Queued.of(command)));
    return queued.done ? queued.after : view();
  }

  @Override
  public SessionView pause() {
    return settleAfter(Command.PAUSE);
  }

  @Override
  public void validatePause() {
    refuseWhenEnded("pause");
    refuseWhenBusy("pause");
  }

  @Override
  public SessionView resume() {
    return settleAfter(Command.RESUME);
  }

  @Override
  public void validateResume() {
    refuseWhenEnded("resume");
    refuseWhenBusy("resume");
  }

  @Override
  public SessionView terminate() {
    if (terminal()) {
      return view();
    }
    return settleAfter(Command.TERMINATE);
  }

  @Override
  public void validateTerminate() {
    // Terminating an ended session is a no-op, never an error.
  }

  @Override
  public SessionDrainOutcome drain(SessionDrainOrder order) {
    if (terminal()) {
      return new SessionDrainOutcome(spec.sessionId(), state, null, null, null, SessionTexts.notOnNode(order, state));
    }
    SessionDrainOutcome outcome = awaitDone(enqueue(Queued.drain(order))).drained;
    return outcome != null ? outcome
        : new SessionDrainOutcome(spec.sessionId(), state, null, null, null, SessionTexts.notOnNode(order, state));
  }

  @Override
  public SessionRerouteOutcome reroute(SessionReroute change) {
    if (terminal()) {
      return endedReroute();
    }
    SessionRerouteOutcome outcome = awaitDone(enqueue(Queued.reroute(change))).rerouted;
    return outcome != null ? outcome : endedReroute();
  }

  /** A session that ended (before its reroute came up) has nothing to move. */
  private SessionRerouteOutcome endedReroute() {
    return new SessionRerouteOutcome(spec.sessionId(), state, url, "ended: nothing to move", true);
  }

  @Override
  public void creditsExhausted() {
    if (state == SessionState.RUNNING && !queued(Command.CREDITS)) {
      enqueue(Queued.of(Command.CREDITS));
    }
  }

  @Override
  public void idle(String reason) {
    if (state == SessionState.RUNNING && !queued(Command.IDLE)) {
      enqueue(Queued.because(Command.IDLE, reason == null || reason.isBlank() ? "idle" : reason));
    }
  }

  @Override
  public void gpuFault(String reason) {
    if (state == SessionState.RUNNING && !queued(Command.GPU_FAULT)) {
      enqueue(Queued.because(Command.GPU_FAULT,
          reason == null || reason.isBlank() ? "its GPU reported a fatal error" : reason));
    }
  }

  @Override
  public void podLost(String reason) {
    if (state == SessionState.RUNNING && !queued(Command.CHECK_POD)) {
      enqueue(Queued.because(Command.CHECK_POD, reason));
    }
  }

  /**
   * Pause and resume queue behind the command under way, one deep: a burst of them is answered at once instead of
   * growing a queue that would keep the session pausing and resuming, and its callers waiting, long after the burst.
   * No Workflow.getVersion: a validator issues no command (it may not: it runs read-only) and runs only for a new
   * update, never on replay (the SDK skips it then), so recorded histories replay whatever it decides today;
   * WorkflowReplayTest replays them.
   */
  private void refuseWhenBusy(String what) {
    long waitingOrUnderWay = commands.stream()
        .filter(q -> q.command == Command.PAUSE || q.command == Command.RESUME).count();
    if (waitingOrUnderWay >= MAX_USER_COMMANDS_QUEUED) {
      // Typed, so the API tells busy from ended by the failure's type rather than its words.
      throw ApplicationFailure.newNonRetryableFailure(SessionTexts.busy(state, what), FailureTypes.SESSION_BUSY);
    }
  }

  private void refuseWhenEnded(String what) {
    if (terminal() || queued(Command.TERMINATE) || state == SessionState.TERMINATING) {
      throw new IllegalStateException(SessionTexts.cannot(state, what));
    }
  }

  @Override
  public SessionView view() {
    return new SessionView(spec == null ? null : spec.sessionId(), state, spec == null ? null : spec.clusterId(),
        placement == null ? null : placement.hostname(), url, pauseKind, warning, lastError, lastErrorType);
  }

  @Override
  public OperationProgress progress() {
    return operation == null ? null : operation.snapshot();
  }
}
