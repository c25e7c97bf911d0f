package io.gshare.workflows.session;

import io.gshare.workflows.common.WireEnum;

/** How a session was paused: its process state kept as a checkpoint image, or not. */
public enum PauseKind implements WireEnum {
  LOSSLESS, COLD;

  /** @return null for null (a session not paused); @throws IllegalArgumentException for any other value */
  public static PauseKind fromWire(String value) {
    return value == null ? null : WireEnum.require(PauseKind.class, value, "pause kind");
  }

}
