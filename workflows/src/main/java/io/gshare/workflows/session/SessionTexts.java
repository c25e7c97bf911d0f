package io.gshare.workflows.session;

import io.gshare.workflows.common.FailureTypes;
import io.gshare.workflows.common.WireEnum;
import java.time.Instant;
import java.util.Locale;

/**
 * The words a session's users read (reasons, warnings, step details), kept out of the workflow's
 * logic so they can change without touching its commands. Pure functions; deterministic.
 */
public final class SessionTexts {

  private SessionTexts() {}

  public static String maxRuntimeWarning(Instant at, MaxRuntimeAction action) {
    return "the session reaches its max runtime at " + at + " and will then "
        + (action == MaxRuntimeAction.TERMINATE ? "end" : "pause");
  }

  public static String pauseReason(boolean creditsExhausted, boolean maxRuntime) {
    return creditsExhausted ? "credits exhausted" : maxRuntime ? "max runtime reached" : null;
  }

  public static String podLost(PodState pod, String reported) {
    String why = pod == null ? "the pod is gone" : "the pod " + pod.phase().wireName().toLowerCase(Locale.ROOT);
    return why + (reported == null ? "" : " (" + reported + ")") + "; resume to start it again";
  }

  public static String leftBehind(String clusterId, String why) {
    return "its pod could not be deleted from cluster " + clusterId + " (" + why + "): it may still run there";
  }

  public static String running(PodState pod) {
    return "pod " + WireEnum.wireNameOrNull(pod.phase()) + " at " + pod.podIp() + " on " + pod.hostname();
  }

  public static String restoredFrom(String image) {
    return image == null ? null : "restored from " + image;
  }

  public static final String COLD_POD_GONE = "cold: the pod is no longer running";
  public static final String COLD_NO_CRIU = "cold: the node has no CRIU and cuda-checkpoint";
  public static final String COLD_NO_REGISTRY = "cold: the cluster has no checkpoint_registry (or no builder image is configured)";

  public static String lossless(String image) {
    return "lossless: " + image;
  }

  public static String checkpointFailed(String why) {
    return "checkpoint failed (" + why + "): pausing cold";
  }

  /** Why a drained session paused or ended: the node's name and the admin's words. */
  public static String drained(SessionDrainOrder order) {
    return "node " + order.hostname() + " is being drained" + (order.reason() == null || order.reason().isBlank() ? ""
        : " (" + order.reason() + ")");
  }

  /** A drained session that could not be moved: it stays paused, and says why and what to do. */
  public static String drainedNoCapacity(SessionDrainOrder order, String why) {
    return drained(order) + " and it could not move to another node: " + why
        + "; it stays paused, resume it when capacity frees";
  }

  /** What a migration did, for the drain's operation view. */
  public static String migrated(String from, String to, PauseKind kind) {
    return "moved from " + from + " to " + to + (kind == PauseKind.LOSSLESS
        ? ", lossless (its memory restored from a checkpoint)"
        : ", cold (restarted; what was only in memory is lost)");
  }

  public static String notOnNode(SessionDrainOrder order, SessionState state) {
    return "not running on " + order.hostname() + " (" + state.wireName() + "): nothing to do";
  }

  public static String cannot(SessionState state, String what) {
    return "the session is " + state.wireName() + "; it cannot " + what;
  }

  /** What a refusal for being busy says; its failure type is {@code FailureTypes.SESSION_BUSY}. */
  public static final String BUSY = "has a command waiting";

  public static String busy(SessionState state, String what) {
    return "the session is " + state.wireName() + " and " + BUSY + "; try to " + what + " again once it is done";
  }

  /**
   * A refused update says the session was busy (not ended): the API answers operation_in_progress. By its type, and
   * by its words while the SDK drops a validator's failure type (temporalio/sdk-java#2875, fixed after 1.38.0: the
   * client sees {@code WorkflowExecutionException}; {@code SessionWorkflowTest} fails once the type travels, and then
   * the words go).
   */
  public static boolean isBusy(String failureType, String message) {
    return FailureTypes.SESSION_BUSY.equals(failureType) || message != null && message.contains(BUSY);
  }
}
