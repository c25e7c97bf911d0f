package io.gshare.workflows.session;

import java.util.Locale;

/** How a session was paused: its process state kept as a checkpoint image, or not. */
public enum PauseKind {
  LOSSLESS, COLD;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
