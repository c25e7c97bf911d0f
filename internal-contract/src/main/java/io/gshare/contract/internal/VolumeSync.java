package io.gshare.contract.internal;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;
import java.util.List;

/**
 * One cluster's volume sync, sent to {@link InternalPaths#VOLUMES_SYNC} every volume sync interval: every
 * claim of a gShare volume in the cluster, the StorageClasses it has (for the pools that name them), and
 * the storage node's disk. Answered with {@link VolumeSyncAnswer}.
 *
 * @param storageClasses every StorageClass in the cluster; null from a worker that does not report them
 * @param storageNodeDiskBytes the {@code ephemeral-storage} capacity of the node labelled
 *     {@code gshare.io/role=storage}; null when there is none
 */
@WireJson
public record VolumeSync(@NotNull @Size(max = 10_000) @Valid List<VolumeState> volumes,
    @Size(max = 1_000) @Valid List<StorageClassState> storageClasses, @PositiveOrZero Long storageNodeDiskBytes) {

  public VolumeSync(List<VolumeState> volumes) {
    this(volumes, null, null);
  }

  /**
   * @param phase the claim's {@code status.phase}, or {@link #TERMINATING} once it is being deleted (a claim a pod
   *     mounts waits on {@code kubernetes.io/pvc-protection} until the pod goes)
   * @param requestedBytes the claim's {@code spec.resources.requests.storage}
   * @param capacityBytes its {@code status.capacity.storage} (what the volume really has)
   * @param usedBytes from the kubelet's stats summary while a pod mounts it; null when unmounted
   */
  @WireJson
  public record VolumeState(@NotBlank String volumeId, @NotBlank @Size(max = 253) String pvcName,
      @Size(max = 32) String phase, @PositiveOrZero Long capacityBytes, @PositiveOrZero Long usedBytes,
      @PositiveOrZero Long requestedBytes) {

    /** The phase reported for a claim with a deletionTimestamp. */
    public static final String TERMINATING = "Terminating";
    /**
     * The phase the control plane records for a claim it saw before and a complete sync no longer lists: deleted
     * outside gShare (its data on that cluster is gone; the next session there claims the volume anew, empty).
     */
    public static final String MISSING = "Missing";

    public VolumeState(String volumeId, String pvcName, String phase, Long capacityBytes, Long usedBytes) {
      this(volumeId, pvcName, phase, capacityBytes, usedBytes, null);
    }
  }

  /** @param csiCapacityBytes the sum of its CSIStorageCapacity objects' capacity; null when it has none */
  @WireJson
  public record StorageClassState(@NotBlank @Size(max = 253) String name, boolean allowsExpansion,
      @PositiveOrZero Long csiCapacityBytes) {}
}
