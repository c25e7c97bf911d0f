package io.gshare.workflows.session;

/**
 * A session as its workflow sees it: state, where, and what the last command met.
 *
 * @param state creating, running, pausing, paused, resuming, terminating, terminated or failed
 * @param pauseKind lossless or cold, for a paused session
 * @param warning e.g. the session will pause at its max runtime; null otherwise
 * @param lastError why the last command could not be carried out (e.g. resume refused); null otherwise
 * @param lastErrorType the problem code of {@code lastError}, e.g. insufficient_capacity
 */
public record SessionView(String sessionId, String state, String clusterId, String hostname, String url,
    String pauseKind, String warning, String lastError, String lastErrorType) {}
