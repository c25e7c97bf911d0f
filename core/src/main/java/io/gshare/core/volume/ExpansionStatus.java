package io.gshare.core.volume;

import io.gshare.workflows.common.WireEnum;
import java.util.Optional;

/** A volume expansion request's status; the wire and database values are the lower-case names. */
public enum ExpansionStatus implements WireEnum {
  /** Asked by the owner, waiting for an admin. */
  REQUESTED,
  /** Approved: the volume's {@code requested_size_gb}, waiting for the volume sync to grow its claims. */
  APPROVED,
  REJECTED,
  /** Every claim of the volume reached the size. */
  APPLIED;

  public static Optional<ExpansionStatus> fromWire(String value) {
    return WireEnum.parse(ExpansionStatus.class, value);
  }
}
