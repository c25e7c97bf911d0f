package io.gshare.workflows.session;

import io.gshare.workflows.common.OperationProgress;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One session's whole life ({@code session-<sessionId>}): create its pod on its cluster, open billing
 * when it runs, pause (lossless or cold), resume, terminate, and act at the policy's max runtime. The
 * API touches it only through these updates, the signal and the queries; commands are carried out in
 * the order they arrive, so a pause sent twice, or a pause racing a terminate, ends in one clear state.
 */
@WorkflowInterface
public interface SessionWorkflow {

  /** The drain update's name, for callers that send it untyped (to set its update id). */
  String DRAIN_UPDATE = "drain";

  @WorkflowMethod(name = "Session")
  SessionView run(SessionStart start);

  /** Pauses a running session; answers once it is paused (or with why it could not be). */
  @UpdateMethod(name = "pause")
  SessionView pause();

  @UpdateValidatorMethod(updateName = "pause")
  void validatePause();

  /** Resumes a paused session: re-admitted and re-placed on the same GPU model. */
  @UpdateMethod(name = "resume")
  SessionView resume();

  @UpdateValidatorMethod(updateName = "resume")
  void validateResume();

  /** Ends the session: objects deleted, billing settled, GPUs released; history kept. */
  @UpdateMethod(name = "terminate")
  SessionView terminate();

  @UpdateValidatorMethod(updateName = "terminate")
  void validateTerminate();

  /**
   * A node drain asks the session to leave node {@code order.nodeId()}: migrate (pause, lossless where
   * the node allows, then resume on another node of the same model and cluster), pause, or terminate.
   * Answers once done. A session not running on that node does nothing, so a repeated order is harmless.
   */
  @UpdateMethod(name = DRAIN_UPDATE)
  SessionDrainOutcome drain(SessionDrainOrder order);

  String REROUTE_UPDATE = "reroute";

  /**
   * The cluster's session domain or routing changed: a running session's route object is rewritten for it and its
   * URL recorded; a paused one keeps the change for its resume. Answers once done; the same change twice is harmless.
   */
  @UpdateMethod(name = REROUTE_UPDATE)
  SessionRerouteOutcome reroute(SessionReroute change);

  /** The metering sweep found the balance cannot cover the next minute: pause. */
  @SignalMethod(name = "creditsExhausted")
  void creditsExhausted();

  /**
   * The idle reaper found the session's GPUs without activity for its policy's idle timeout: pause (lossless
   * where the node allows, as a user's pause), its billing closed, with {@code reason} (e.g. "idle for 30
   * minutes by dcgm") as the state reason. Nothing is deleted. A session not running ignores it.
   */
  @SignalMethod(name = "idle")
  void idle(String reason);

  /**
   * The cluster's worker reported the pod of this running session failed or gone (node lost, evicted,
   * deleted behind gShare's back). The workflow asks the cluster itself before it acts: a stale report
   * changes nothing; a pod really gone pauses the session cold, its billing closed and GPUs released.
   */
  @SignalMethod(name = "podLost")
  void podLost(String reason);

  /**
   * The session's card reported a fatal Xid: the card is cordoned, and the session pauses with {@code reason} (its
   * resume lands on another card). Ignored unless it runs.
   */
  @SignalMethod(name = "gpuFault")
  void gpuFault(String reason);

  @QueryMethod(name = "view")
  SessionView view();

  /** The current (or last) command's steps, for the operations API. */
  @QueryMethod(name = "progress")
  OperationProgress progress();
}
