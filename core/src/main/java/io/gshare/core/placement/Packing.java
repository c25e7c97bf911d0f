package io.gshare.core.placement;

import java.util.Arrays;
import java.util.Locale;

/** How placement chooses among fitting GPUs; the wire and database values are the lower-case names. */
public enum Packing {
  /** The busiest fitting GPU (slices) or node (whole GPUs) first, keeping whole GPUs and nodes free. */
  BINPACK,
  /** The emptiest first. */
  SPREAD;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** @throws IllegalArgumentException for a value that is not a packing */
  public static Packing fromWire(String value) {
    return Arrays.stream(values()).filter(p -> p.wireName().equals(value)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown placement '" + value + "' (binpack or spread)"));
  }
}
