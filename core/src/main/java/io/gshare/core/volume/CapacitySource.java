package io.gshare.core.volume;

import io.gshare.workflows.common.WireEnum;
import java.util.Optional;

/** Where a storage pool's total capacity comes from; the wire and database values are the lower-case names. */
public enum CapacitySource implements WireEnum {
  /** The CSI driver's GetCapacity, as CSIStorageCapacity objects of the pool's class on its source cluster. */
  CSI,
  /** What the admin entered ({@code manual_capacity_gb}). */
  MANUAL,
  /** The storage node's root disk on the source cluster (a fallback). */
  NODE_DISK;

  public static Optional<CapacitySource> fromWire(String value) {
    return WireEnum.parse(CapacitySource.class, value);
  }
}
