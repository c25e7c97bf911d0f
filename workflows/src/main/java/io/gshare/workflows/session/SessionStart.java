package io.gshare.workflows.session;

import java.time.Duration;

/**
 * Everything a session workflow needs, decided by the api before it starts (workflow code reads no
 * configuration). Also the continue-as-new and recovery input: {@code state} says where to pick up.
 *
 * @param placement where the session runs now; null while paused
 * @param authUrl the control plane's /internal/connect/verify, as the cluster's ingress reaches it
 * @param maxRuntime null: no limit; the policy's action at the limit is {@code maxRuntimeAction}
 * @param runtimeUsed running time already spent (before a continue-as-new or a pause)
 * @param state {@code creating} for a new session; {@code running} or {@code paused} when resumed from history
 * @param checkpoint the image of the last lossless pause; null otherwise
 * @param volume the user's volume the pod mounts; null: none
 * @param checkpointTarget where lossless pauses push their images; null: every pause is cold
 */
public record SessionStart(
    String sessionId,
    String userId,
    String clusterId,
    GpuPlacement placement,
    String imageReference,
    int port,
    String path,
    String sessionDomain,
    String authUrl,
    Duration maxRuntime,
    String maxRuntimeAction,
    Duration runtimeUsed,
    String state,
    String checkpoint,
    SessionVolume volume,
    CheckpointTarget checkpointTarget) {

  public SessionStart withState(String newState, GpuPlacement newPlacement, Duration used, String newCheckpoint) {
    return new SessionStart(sessionId, userId, clusterId, newPlacement, imageReference, port, path, sessionDomain,
        authUrl, maxRuntime, maxRuntimeAction, used, newState, newCheckpoint, volume, checkpointTarget);
  }
}
