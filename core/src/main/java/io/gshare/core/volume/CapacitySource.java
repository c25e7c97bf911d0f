package io.gshare.core.volume;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** Where a storage pool's total capacity comes from; the wire and database values are the lower-case names. */
public enum CapacitySource {
  /** The CSI driver's GetCapacity, as CSIStorageCapacity objects of the pool's class on its source cluster. */
  CSI,
  /** What the admin entered ({@code manual_capacity_gb}). */
  MANUAL,
  /** The storage node's root disk on the source cluster (a fallback). */
  NODE_DISK;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<CapacitySource> fromWire(String value) {
    return Arrays.stream(values()).filter(s -> s.wireName().equals(value)).findFirst();
  }
}
