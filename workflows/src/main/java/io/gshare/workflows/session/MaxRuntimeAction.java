package io.gshare.workflows.session;

import java.util.Arrays;
import java.util.Locale;

/** What a session's max runtime does when it is reached; the wire and database value is the lower-case name. */
public enum MaxRuntimeAction {
  PAUSE, TERMINATE;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** @throws IllegalArgumentException for a value that is not an action */
  public static MaxRuntimeAction fromWire(String value) {
    return Arrays.stream(values()).filter(a -> a.wireName().equals(value)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown max runtime action '" + value + "'"));
  }
}
