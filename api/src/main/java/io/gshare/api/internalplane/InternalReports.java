package io.gshare.api.internalplane;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;
import java.time.Instant;
import java.util.List;

/** What a cluster-worker reports about the objects it runs, besides its inventory. */
final class InternalReports {

  private InternalReports() {}

  record SessionStatus(@NotBlank String sessionId, @Size(max = 32) String phase, @Size(max = 64) String podIp,
      @Size(max = 253) String node, @Size(max = 1000) String message) {}

  /**
   * @param complete every session pod of the cluster is listed: a running session missing from it has
   *     lost its pod (its workflow is told, and checks with the cluster before it acts)
   */
  record StatusReport(@NotNull @Size(max = 10_000) @Valid List<SessionStatus> sessions, Boolean complete) {

    boolean isComplete() {
      return Boolean.TRUE.equals(complete);
    }
  }

  record UsageSample(@NotBlank String sessionId, @Size(max = 128) String gpuUuid,
      @DecimalMin("0") @DecimalMax("100") Double gpuUtilPercent, @PositiveOrZero Long memoryUsedMib,
      @NotNull Instant sampledAt) {}

  record UsageReport(@NotNull @Size(max = 50_000) @Valid List<UsageSample> samples) {}

  record VolumeState(@NotBlank String volumeId, @NotBlank @Size(max = 253) String pvcName, @Size(max = 32) String phase,
      @PositiveOrZero Long capacityBytes, @PositiveOrZero Long usedBytes) {}

  record VolumeSync(@NotNull @Size(max = 10_000) @Valid List<VolumeState> volumes) {}

  /** How many rows a report touched. */
  record Accepted(int accepted) {}
}
