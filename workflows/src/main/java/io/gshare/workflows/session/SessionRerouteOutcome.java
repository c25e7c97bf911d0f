package io.gshare.workflows.session;

/**
 * What a reroute did to one session.
 *
 * @param state the session's state after it; null when its workflow had ended
 * @param url its URL now; null when it is not running
 * @param detail in words: moved, will resume there, or why not
 * @param moved whether the session now answers on the new domain (or will, once resumed); false when applying
 *     the route failed
 */
public record SessionRerouteOutcome(String sessionId, SessionState state, String url, String detail, boolean moved) {}
