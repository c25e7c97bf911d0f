package io.gshare.workflows.common;

/**
 * Workflow ids name the object they act on, so a retried start finds the run already under way
 * instead of starting a second one.
 */
public final class WorkflowIds {

  private WorkflowIds() {}

  public static String clusterProbe(String clusterId) {
    return "cluster-probe-" + Ids.requireValid(clusterId, "clusterId");
  }

  public static String clusterAttach(String clusterId) {
    return "cluster-attach-" + Ids.requireValid(clusterId, "clusterId");
  }

  /** Moves a cluster's live sessions to its new session domain or routing. */
  public static String clusterReroute(String clusterId) {
    return "cluster-reroute-" + Ids.requireValid(clusterId, "clusterId");
  }

  /** One proof of a kubeconfig offered for the cluster; {@code attempt} tells two changes at once apart. */
  public static String kubeconfigProof(String clusterId, String attempt) {
    return "kubeconfig-proof-" + Ids.requireValid(clusterId, "clusterId") + "-" + Ids.requireValid(attempt, "attempt");
  }

  public static String clusterDetach(String clusterId) {
    return "cluster-detach-" + Ids.requireValid(clusterId, "clusterId");
  }

  public static String session(String sessionId) {
    return "session-" + Ids.requireValid(sessionId, "sessionId");
  }

  public static String nodeDrain(String nodeId) {
    return "node-drain-" + Ids.requireValid(nodeId, "nodeId");
  }

  public static String nodeUncordon(String nodeId) {
    return "node-uncordon-" + Ids.requireValid(nodeId, "nodeId");
  }

  public static String nodeDevices(String nodeId) {
    return "node-devices-" + Ids.requireValid(nodeId, "nodeId");
  }

  public static String volumeReclaim(String volumeId) {
    return "volume-reclaim-" + Ids.requireValid(volumeId, "volumeId");
  }

  public static String imagePrepull(String imageId) {
    return "image-prepull-" + Ids.requireValid(imageId, "imageId");
  }

  /** The scheduled rotation of every attached cluster's operator token; its Schedule has the same id. */
  public static final String TOKEN_ROTATION = "token-rotation";
  /** The scheduled rotation of the internal signing key; its Schedule has the same id. */
  public static final String SIGNING_KEY_ROTATION = "signing-key-rotation";

  /** A rotation of one cluster's operator token, asked for by an admin. */
  public static String tokenRotation(String clusterId) {
    return TOKEN_ROTATION + "-" + Ids.requireValid(clusterId, "clusterId");
  }

  /** One metric query ({@code requestId} a fresh id of the call): short-lived, answered to its caller at once. */
  public static String metricQuery(String requestId) {
    return "metric-query-" + Ids.requireValid(requestId, "requestId");
  }

  /** The idle reaper's sweep, started every minute by the Temporal Schedule of the same id. */
  public static final String IDLE_REAPER = "idle-reaper";

  /** The node liveness sweep, started every {@code gshare.node.sweep-interval} by the Temporal Schedule of the same id. */
  public static final String NODE_LIVENESS = "node-liveness";

  /** Admin alert delivery, started every {@code gshare.alerts.delivery-interval} by the Temporal Schedule of the same id. */
  public static final String ALERT_DELIVERY = "alert-delivery";

  /**
   * Session recovery, started every {@code gshare.sessions.recovery-retry-interval} (and once at each api start) by the
   * Temporal Schedule of the same id.
   */
  public static final String SESSION_RECOVERY = "session-recovery";
}
