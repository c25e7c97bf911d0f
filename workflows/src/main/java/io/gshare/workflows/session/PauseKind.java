package io.gshare.workflows.session;

import io.gshare.workflows.common.WireEnum;

/** How a session was paused: its process state kept as a checkpoint image, or not. */
public enum PauseKind implements WireEnum {
  LOSSLESS, COLD;

}
