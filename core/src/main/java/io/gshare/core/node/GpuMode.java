package io.gshare.core.node;

import io.gshare.workflows.common.WireEnum;

/**
 * How a node's GPUs are handed out ({@code nodes.gpu_mode}, the API's {@code gpu_mode}), from the node's
 * {@code gshare.io/gpu-mode} label as its worker reports it; null for a node without the label.
 */
public enum GpuMode implements WireEnum {
  /** Whole GPUs only. */
  EXCLUSIVE,
  /** HAMi slices of a GPU. */
  FRACTIONAL,
  /** No GPU: CPU sessions. */
  CPU,
  /** A storage node: no sessions. */
  STORAGE;

  /** @return null for null (a node without the label); @throws IllegalArgumentException for any other value */
  public static GpuMode fromWire(String value) {
    return value == null ? null : WireEnum.require(GpuMode.class, value, "GPU mode");
  }
}
