package io.gshare.contract.internal;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;
import java.time.Instant;
import java.util.List;

/** GPU usage samples of sessions of a cluster, sent to {@link InternalPaths#USAGE}. */
@WireJson
public record UsageReport(@NotNull @Size(max = 50_000) @Valid List<Sample> samples) {

  @WireJson
  public record Sample(@NotBlank String sessionId, @Size(max = 128) String gpuUuid,
      @DecimalMin("0") @DecimalMax("100") Double gpuUtilPercent, @PositiveOrZero Long memoryUsedMib,
      @NotNull Instant sampledAt) {}
}
