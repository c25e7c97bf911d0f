package io.gshare.workflows.cluster;

import java.util.List;

/**
 * One node of a cluster.
 *
 * @param gpuMode the {@code gshare.io/gpu-mode} label: exclusive, fractional, cpu, storage, or null
 * @param gpuEnabled the {@code gpu=on} label HAMi's device plugin selects on
 * @param losslessPause both {@code gshare.io/criu=ready} and {@code gshare.io/cuda-checkpoint=ready}
 */
public record NodeInfo(
    String name,
    boolean ready,
    boolean schedulable,
    String gpuMode,
    boolean gpuEnabled,
    boolean losslessPause,
    List<GpuDeviceInfo> gpus) {

  public NodeInfo {
    gpus = gpus == null ? List.of() : List.copyOf(gpus);
  }
}
