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

/**
 * What a node's usage agent sampled in its last second, sent to {@link InternalPaths#LIVE_USAGE}: one sample per
 * session container on the node, from its cgroup v2 counters and HAMi's per-container GPU series. Only the live
 * chart reads it; nothing is stored, and nothing else depends on it.
 *
 * @param node the node the agent runs on (its {@code spec.nodeName})
 */
@WireJson
public record LiveUsage(@NotBlank @Size(max = 253) String node, @NotNull @Size(max = 1_000) @Valid List<SessionSample> samples) {

  public LiveUsage {
    samples = List.copyOf(samples);
  }

  /**
   * One second of one session's container.
   *
   * @param cpuCores CPU time used per second of wall time over the last interval ({@code cpu.stat} usage_usec)
   * @param memoryBytes {@code memory.current}
   * @param ioReadBytesPerSecond read bytes per second over the last interval ({@code io.stat} rbytes, all devices)
   * @param ioWriteBytesPerSecond written bytes per second ({@code io.stat} wbytes)
   * @param gpuMemoryBytes GPU memory the container uses, as HAMi's monitor reports it; null without HAMi
   * @param gpuUtilPercent the container's share of its GPUs' time, as HAMi reports it; null without HAMi
   */
  @WireJson
  public record SessionSample(@NotBlank @Size(max = 64) String sessionId, @NotNull Instant sampledAt,
      @PositiveOrZero double cpuCores, @PositiveOrZero long memoryBytes, @PositiveOrZero double ioReadBytesPerSecond,
      @PositiveOrZero double ioWriteBytesPerSecond, @PositiveOrZero Long gpuMemoryBytes,
      @DecimalMin("0") @DecimalMax("100") Double gpuUtilPercent) {}
}
