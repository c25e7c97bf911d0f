package io.gshare.core.volume;

import io.gshare.workflows.common.WireEnum;

/** A volume's status; the wire and database values are the lower-case names. */
public enum VolumeStatus implements WireEnum {
  /** Written before the volume API existed; treated as {@link #AVAILABLE}. */
  PENDING,
  /** Mountable: a session claims it on the cluster it runs on. */
  AVAILABLE,
  IN_USE,
  /** An approved expansion waits for the volume sync to grow its claims to {@code requested_size_gb}. */
  EXPANDING,
  /** Deleted by its owner or an admin; restorable until {@code reclaim_after}, then reclaimed. */
  DELETING,
  DELETED,
  /** Its claims are gone on every cluster; the row stays as history. */
  RECLAIMED;

  /** @throws IllegalArgumentException for a value that is not a volume status */
  public static VolumeStatus fromWire(String value) {
    return WireEnum.require(VolumeStatus.class, value, "volume status");
  }

}
