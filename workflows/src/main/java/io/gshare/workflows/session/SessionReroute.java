package io.gshare.workflows.session;

/**
 * A cluster's session domain or routing changed (PATCH of the cluster): the session's URL moves there. A running
 * session's Ingress or HTTPRoute is rewritten and its recorded URL follows; a paused one resumes there.
 *
 * @param sessionDomain the cluster's session domain now
 * @param route how the cluster routes session URLs now
 */
public record SessionReroute(String sessionDomain, SessionRoute route) {}
