package io.gshare.workflows.session;

import java.util.Locale;

/** What a user asks of a session; each is a workflow update of the same name. */
public enum SessionCommand {
  PAUSE, RESUME, TERMINATE;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
