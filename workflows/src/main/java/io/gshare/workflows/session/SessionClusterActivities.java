package io.gshare.workflows.session;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** A session's objects in its cluster, run by the cluster's worker on gshare-cluster-<clusterId>. */
@ActivityInterface
public interface SessionClusterActivities {

  /** Activity type names that carry options of their own in the session workflow's stub. */
  String AWAIT_RUNNING = "AwaitSessionRunning";
  String START_POD = "StartSessionPod";
  String CHECKPOINT = "CheckpointSession";
  String BUILD_CHECKPOINT_IMAGE = "BuildCheckpointImage";


  /** Creates the pod, Service and Ingress, or finds them made by an earlier attempt. */
  @ActivityMethod(name = "EnsureSessionObjects")
  void ensureObjects(SessionPod pod);

  /**
   * {@link #ensureObjects} then {@link #awaitRunning} in one heartbeating activity: one round trip
   * through Temporal per start instead of two (the lean lifecycle; the two remain for histories
   * recorded before it).
   */
  @ActivityMethod(name = START_POD)
  PodState startPod(SessionPod pod);

  /** Waits (heartbeating) until the pod runs and is ready; fails for good when it fails. */
  @ActivityMethod(name = AWAIT_RUNNING)
  PodState awaitRunning(String sessionId);

  /** The session's pod as the cluster has it now; null when there is none. */
  @ActivityMethod(name = "SessionPodState")
  PodState podState(String sessionId);

  /** Checkpoints the session's container through the kubelet checkpoint API; returns the archive. */
  @ActivityMethod(name = CHECKPOINT)
  String checkpoint(String sessionId);

  /**
   * Builds an image from a checkpoint archive on the node that holds it and pushes it to the cluster's
   * registry (a builder pod on that node); removes the archive once pushed. Returns the image reference.
   */
  @ActivityMethod(name = BUILD_CHECKPOINT_IMAGE)
  String buildCheckpointImage(CheckpointImage checkpoint);

  /**
   * Writes the route of a running session for {@code pod}'s session domain and routing (its Ingress, or its
   * HTTPRoute and SecurityPolicy) and removes the other routing's objects; the pod and Service stay as they are.
   */
  @ActivityMethod(name = "ApplySessionRoute")
  void applyRoute(SessionPod pod);

  /** Deletes the pod, Service and Ingress (nothing happens for what is already gone). */
  @ActivityMethod(name = "DeleteSessionObjects")
  void deleteObjects(String sessionId);
}
