package io.gshare.core.volume;

import io.gshare.workflows.common.WireEnum;
import java.util.Optional;

/** Which clusters may mount a storage pool; the wire and database values are the lower-case names. */
public enum PoolScope implements WireEnum {
  /** Every cluster. */
  ALL,
  /** The clusters the pool names ({@code storage_pool_clusters}). */
  SELECTED;

  public static Optional<PoolScope> fromWire(String value) {
    return WireEnum.parse(PoolScope.class, value);
  }
}
