package io.gshare.workflows.session;

import io.gshare.workflows.common.WireEnum;
import java.util.Optional;

/**
 * What a node drain does with each session on the node: move it to another node of its model
 * ({@code migrate}: pause, lossless where it can, and resume elsewhere), {@code pause} it, or
 * {@code terminate} it. Every path settles the session's billing once and releases its GPUs.
 */
public enum DrainMode implements WireEnum {
  MIGRATE, PAUSE, TERMINATE;

  public static Optional<DrainMode> fromWire(String value) {
    return WireEnum.parse(DrainMode.class, value);
  }

  public static String wireNames() {
    return WireEnum.wireNames(DrainMode.class);
  }
}
