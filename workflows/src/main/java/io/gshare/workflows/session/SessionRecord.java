package io.gshare.workflows.session;

/** A state change of a session for its Postgres row; null fields leave the column as it is. */
public record SessionRecord(String sessionId, SessionState state, String reason, String url, String nodeId,
    String hostname, PauseKind pauseKind, String checkpoint) {

  public static SessionRecord state(String sessionId, SessionState state, String reason) {
    return new SessionRecord(sessionId, state, reason, null, null, null, null, null);
  }
}
