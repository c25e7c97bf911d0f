package io.gshare.contract.internal;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;
import java.util.List;

/** The claims and usage of volumes a cluster mounts, sent to {@link InternalPaths#VOLUMES_SYNC}. */
@WireJson
public record VolumeSync(@NotNull @Size(max = 10_000) @Valid List<VolumeState> volumes) {

  @WireJson
  public record VolumeState(@NotBlank String volumeId, @NotBlank @Size(max = 253) String pvcName,
      @Size(max = 32) String phase, @PositiveOrZero Long capacityBytes, @PositiveOrZero Long usedBytes) {}
}
