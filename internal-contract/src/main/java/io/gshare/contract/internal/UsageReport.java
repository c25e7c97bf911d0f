package io.gshare.contract.internal;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;
import java.time.Instant;
import java.util.List;

/**
 * GPU usage samples of sessions of a cluster, sent to {@link InternalPaths#USAGE}; answered with a
 * {@link UsageAnswer}.
 *
 * @param xids the cards' last Xid as the cluster's dcgm-exporter reports them (0: none since the driver loaded);
 *     older workers sent the non-zero ones only
 */
@WireJson
public record UsageReport(@NotNull @Size(max = 50_000) @Valid List<Sample> samples,
    @Size(max = 10_000) @Valid List<Xid> xids) {

  public UsageReport {
    xids = xids == null ? List.of() : List.copyOf(xids);
  }

  /** A report of samples only, as reports were before the Xid. */
  public UsageReport(List<Sample> samples) {
    this(samples, List.of());
  }

  /**
   * A card's last Xid error (NVIDIA's code; dcgm-exporter's {@code DCGM_FI_DEV_XID_ERRORS}).
   *
   * @param observedAt when the worker read it
   */
  @WireJson
  public record Xid(@NotBlank @Size(max = 128) String gpuUuid, @PositiveOrZero int code, @NotNull Instant observedAt) {}

  /**
   * @param lastKernelAt when the GPU last ran a kernel for the session, where the source says (HAMi); null
   *     otherwise
   * @param source where the activity was read: {@code dcgm} (Prometheus) or {@code hami}; null for a sample
   *     that is not an activity measurement
   */
  @WireJson
  public record Sample(@NotBlank String sessionId, @Size(max = 128) String gpuUuid,
      @DecimalMin("0") @DecimalMax("100") Double gpuUtilPercent, @PositiveOrZero Long memoryUsedMib,
      @NotNull Instant sampledAt, Instant lastKernelAt, @Pattern(regexp = "dcgm|hami") String source) {

    /** A sample without activity fields, as reports were before the idle reaper. */
    public Sample(String sessionId, String gpuUuid, Double gpuUtilPercent, Long memoryUsedMib, Instant sampledAt) {
      this(sessionId, gpuUuid, gpuUtilPercent, memoryUsedMib, sampledAt, null, null);
    }
  }
}
