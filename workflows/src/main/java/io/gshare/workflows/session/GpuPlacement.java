package io.gshare.workflows.session;

import java.util.List;

/**
 * Where a session runs, as the control plane decided it: the node and the GPUs it holds there.
 *
 * @param mode {@code exclusive} (whole GPUs) or {@code fractional} (a slice of one GPU)
 * @param gpuUuids the cards, one for a slice
 * @param gpumemMib the slice's memory; null for whole GPUs
 * @param gpucoresPercent the slice's compute share; null for whole GPUs
 * @param losslessPause the node has CRIU and cuda-checkpoint ready: a pause checkpoints the session
 */
public record GpuPlacement(String clusterId, String nodeId, String hostname, String mode, String gpuModel,
    List<String> gpuUuids, Integer gpumemMib, Integer gpucoresPercent, boolean losslessPause) {

  public GpuPlacement {
    gpuUuids = gpuUuids == null ? List.of() : List.copyOf(gpuUuids);
  }
}
