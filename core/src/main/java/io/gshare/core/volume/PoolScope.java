package io.gshare.core.volume;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** Which clusters may mount a storage pool; the wire and database values are the lower-case names. */
public enum PoolScope {
  /** Every cluster. */
  ALL,
  /** The clusters the pool names ({@code storage_pool_clusters}). */
  SELECTED;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<PoolScope> fromWire(String value) {
    return Arrays.stream(values()).filter(s -> s.wireName().equals(value)).findFirst();
  }
}
