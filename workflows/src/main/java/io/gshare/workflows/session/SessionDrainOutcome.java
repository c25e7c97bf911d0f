package io.gshare.workflows.session;

/**
 * What a drain order did to one session.
 *
 * @param state the session's state afterwards (running on another node, paused, terminated, ...)
 * @param fromHost the node it left; null when it was not on the drained node
 * @param toHost the node it runs on now after a migration; null otherwise
 * @param pauseKind how it was paused on the way (lossless or cold); null when it was not paused
 * @param detail one line for the operation view, in words an operator and the user can act on
 */
public record SessionDrainOutcome(String sessionId, SessionState state, String fromHost, String toHost,
    PauseKind pauseKind, String detail) {

  /** True when the session holds nothing on the drained node any more. */
  public boolean settled() {
    return state != null && state != SessionState.RUNNING || toHost != null || fromHost == null;
  }
}
