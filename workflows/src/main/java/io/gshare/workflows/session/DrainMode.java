package io.gshare.workflows.session;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What a node drain does with each session on the node: move it to another node of its model
 * ({@code migrate}: pause, lossless where it can, and resume elsewhere), {@code pause} it, or
 * {@code terminate} it. Every path settles the session's billing once and releases its GPUs.
 */
public enum DrainMode {
  MIGRATE, PAUSE, TERMINATE;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<DrainMode> fromWire(String value) {
    return Arrays.stream(values()).filter(m -> m.wireName().equals(value)).findFirst();
  }

  public static String wireNames() {
    return Arrays.stream(values()).map(DrainMode::wireName).collect(Collectors.joining(", "));
  }
}
