package io.gshare.core.placement;

import io.gshare.workflows.common.WireEnum;

/** How placement chooses among fitting GPUs; the wire and database values are the lower-case names. */
public enum Packing implements WireEnum {
  /** The busiest fitting GPU (slices) or node (whole GPUs) first, keeping whole GPUs and nodes free. */
  BINPACK,
  /** The emptiest first. */
  SPREAD;

  /** @throws IllegalArgumentException for a value that is not a packing */
  public static Packing fromWire(String value) {
    return WireEnum.require(Packing.class, value, "placement");
  }
}
