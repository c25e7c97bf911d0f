package io.gshare.core.volume;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** A volume expansion request's status; the wire and database values are the lower-case names. */
public enum ExpansionStatus {
  /** Asked by the owner, waiting for an admin. */
  REQUESTED,
  /** Approved: the volume's {@code requested_size_gb}, waiting for the volume sync to grow its claims. */
  APPROVED,
  REJECTED,
  /** Every claim of the volume reached the size. */
  APPLIED;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<ExpansionStatus> fromWire(String value) {
    return Arrays.stream(values()).filter(s -> s.wireName().equals(value)).findFirst();
  }
}
