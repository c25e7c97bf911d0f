package io.gshare.workflows.session;

import io.gshare.workflows.common.WireEnum;

/** What a session's max runtime does when it is reached; the wire and database value is the lower-case name. */
public enum MaxRuntimeAction implements WireEnum {
  PAUSE, TERMINATE;

  /** @throws IllegalArgumentException for a value that is not an action */
  public static MaxRuntimeAction fromWire(String value) {
    return WireEnum.require(MaxRuntimeAction.class, value, "max runtime action");
  }
}
