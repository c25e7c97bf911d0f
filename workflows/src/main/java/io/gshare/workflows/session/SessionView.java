package io.gshare.workflows.session;

/**
 * A session as its workflow sees it: state, where, and what the last command met.
 *
 * @param pauseKind for a paused session
 * @param warning e.g. the session will pause at its max runtime; null otherwise
 * @param lastError why the last command could not be carried out (e.g. resume refused); null otherwise
 * @param lastErrorType the failure type of {@code lastError}: a problem code such as insufficient_capacity,
 *     or one of {@link io.gshare.workflows.common.FailureTypes}
 */
public record SessionView(String sessionId, SessionState state, String clusterId, String hostname, String url,
    PauseKind pauseKind, String warning, String lastError, String lastErrorType) {}
