package io.gshare.workflows.cluster;

/**
 * One physical GPU as HAMi registers it on its node.
 *
 * @param model the device type, compared to an offering's GPU model as an exact string
 * @param memoryMib device memory HAMi may hand out
 * @param coresPercent 100 for a whole GPU
 * @param splitCount how many containers HAMi lets share the device
 */
public record GpuDeviceInfo(
    String uuid, int index, String model, long memoryMib, int coresPercent, int splitCount, boolean healthy) {}
