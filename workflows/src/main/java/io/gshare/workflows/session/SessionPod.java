package io.gshare.workflows.session;

/**
 * What the cluster-worker creates for a session: the pod (pinned to the placement), its Service and
 * its Ingress on the cluster's session domain, path {@code /s/<sessionId>/}.
 *
 * @param checkpoint the checkpoint image to restore (a lossless resume) instead of the session's image; null for a fresh start
 * @param volume the volume to claim (if the cluster has no claim for it yet) and mount; null: none
 * @param route how the cluster routes the URL (an Ingress, or an HTTPRoute and its SecurityPolicy); null: ingress-nginx
 * @param signInUrl where the router sends a browser that is not signed in on the session domain; null: nowhere (401)
 */
public record SessionPod(String sessionId, String userId, GpuPlacement placement, String imageReference, int port,
    String path, String sessionDomain, String authUrl, String checkpoint, SessionVolume volume, SessionRoute route,
    String signInUrl) {

  public SessionPod(String sessionId, String userId, GpuPlacement placement, String imageReference, int port,
      String path, String sessionDomain, String authUrl, String checkpoint, SessionVolume volume, SessionRoute route) {
    this(sessionId, userId, placement, imageReference, port, path, sessionDomain, authUrl, checkpoint, volume, route,
        null);
  }

  public SessionPod(String sessionId, String userId, GpuPlacement placement, String imageReference, int port,
      String path, String sessionDomain, String authUrl, String checkpoint, SessionVolume volume) {
    this(sessionId, userId, placement, imageReference, port, path, sessionDomain, authUrl, checkpoint, volume, null);
  }

  /** How the URL is routed; ingress-nginx when not said. */
  public SessionRoute routeOrDefault() {
    return SessionRoute.orDefault(route);
  }
}
