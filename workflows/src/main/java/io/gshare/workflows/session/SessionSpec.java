package io.gshare.workflows.session;

import java.time.Duration;

/**
 * What stays the same for a session's whole life, decided by the api before its workflow starts
 * (workflow code reads no configuration).
 *
 * @param authUrl the control plane's /internal/connect/verify, as the cluster's ingress reaches it
 * @param maxRuntime null: no limit; what happens at the limit is {@code maxRuntimeAction}
 * @param volume the user's volume the pod mounts; null: none
 * @param checkpointTarget where lossless pauses push their images; null: every pause is cold
 * @param route how the cluster routes the session's URL; null (specs recorded before it existed): ingress-nginx
 * @param signInUrl where a browser without a cookie on the session domain is sent to sign in (the console's
 *     {@code /auth/connect}); null (specs recorded before it existed): no redirect, a 401
 * @param urlForm the scheme and port of the session's URL around its domain; null (specs recorded before it existed,
 *     and production's default): {@link SessionUrlForm#HTTPS}
 */
public record SessionSpec(
    String sessionId,
    String userId,
    String clusterId,
    String imageReference,
    int port,
    String path,
    String sessionDomain,
    String authUrl,
    Duration maxRuntime,
    MaxRuntimeAction maxRuntimeAction,
    SessionVolume volume,
    CheckpointTarget checkpointTarget,
    SessionRoute route,
    String signInUrl,
    SessionUrlForm urlForm) {

  public SessionSpec(String sessionId, String userId, String clusterId, String imageReference, int port, String path,
      String sessionDomain, String authUrl, Duration maxRuntime, MaxRuntimeAction maxRuntimeAction,
      SessionVolume volume, CheckpointTarget checkpointTarget, SessionRoute route, String signInUrl) {
    this(sessionId, userId, clusterId, imageReference, port, path, sessionDomain, authUrl, maxRuntime, maxRuntimeAction,
        volume, checkpointTarget, route, signInUrl, null);
  }

  public SessionSpec(String sessionId, String userId, String clusterId, String imageReference, int port, String path,
      String sessionDomain, String authUrl, Duration maxRuntime, MaxRuntimeAction maxRuntimeAction,
      SessionVolume volume, CheckpointTarget checkpointTarget, SessionRoute route) {
    this(sessionId, userId, clusterId, imageReference, port, path, sessionDomain, authUrl, maxRuntime, maxRuntimeAction,
        volume, checkpointTarget, route, null);
  }

  public SessionSpec(String sessionId, String userId, String clusterId, String imageReference, int port, String path,
      String sessionDomain, String authUrl, Duration maxRuntime, MaxRuntimeAction maxRuntimeAction,
      SessionVolume volume, CheckpointTarget checkpointTarget) {
    this(sessionId, userId, clusterId, imageReference, port, path, sessionDomain, authUrl, maxRuntime, maxRuntimeAction,
        volume, checkpointTarget, null);
  }

  /** The same spec on another session domain and routing (the cluster's changed; see {@link SessionReroute}). */
  public SessionSpec rerouted(SessionReroute change) {
    return new SessionSpec(sessionId, userId, clusterId, imageReference, port, path, change.sessionDomain(), authUrl,
        maxRuntime, maxRuntimeAction, volume, checkpointTarget, change.route(), signInUrl, urlForm);
  }

  /** The session's URL: {@code https://<domain>/s/<id>/}, or as {@link #urlForm} spells it. */
  public String url() {
    return SessionUrlForm.urlOf(urlForm, sessionDomain, sessionId);
  }
}
