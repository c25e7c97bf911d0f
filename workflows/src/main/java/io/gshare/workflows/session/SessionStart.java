package io.gshare.workflows.session;

/**
 * A session workflow's input, and its continue-as-new and recovery input: what never changes and
 * where it stands.
 */
public record SessionStart(SessionSpec spec, SessionSnapshot snapshot) {

  public String sessionId() {
    return spec.sessionId();
  }
}
