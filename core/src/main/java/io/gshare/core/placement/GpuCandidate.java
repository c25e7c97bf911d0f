package io.gshare.core.placement;

/**
 * A GPU that may take a session, with what is allocated on it now.
 *
 * @param usedCount allocations on the card (whole or slices)
 * @param usedWhole whole-GPU allocations on the card (0 or 1)
 */
public record GpuCandidate(String uuid, int index, String nodeId, String hostname, String clusterId, String poolId,
    boolean lossless, long memoryMib, int coresPercent, int splitCount, int usedCount, int usedWhole, long usedMem,
    int usedCores) {

  boolean free() {
    return usedCount == 0;
  }

  boolean fitsSlice(int mem, int cores) {
    return usedWhole == 0 && usedCount + 1 <= splitCount && usedMem + mem <= memoryMib && usedCores + cores <= coresPercent;
  }
}
