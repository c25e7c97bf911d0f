package io.gshare.contract.internal;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;

/**
 * One tick's report of every node of a cluster, sent by its cluster-worker in a single call to
 * {@link InternalPaths#INVENTORY}.
 *
 * @param clusterId must be the cluster of the reporting worker's token
 * @param tokenSecretPresent whether the worker's own {@code gshare-operator-internal-jwt} Secret exists; false
 *     has the control plane write a fresh token into it; null from a worker that does not look
 */
@WireJson
public record InventoryReport(
    @NotBlank String clusterId,
    String apiserverVersion,
    @NotNull @Size(max = 10_000) @Valid List<NodeReport> nodes,
    Boolean tokenSecretPresent) {

  public InventoryReport(String clusterId, String apiserverVersion, List<NodeReport> nodes) {
    this(clusterId, apiserverVersion, nodes, null);
  }

  @WireJson
  public record NodeReport(
      @NotBlank @Size(max = 253) String hostname,
      boolean ready,
      boolean schedulable,
      @Pattern(regexp = "exclusive|fractional|cpu|storage") String gpuMode,
      boolean losslessPause,
      Map<String, String> labels,
      Map<String, String> capacity,
      @Size(max = 64) @Valid List<GpuReport> gpus) {

    public List<GpuReport> gpusOrEmpty() {
      return gpus == null ? List.of() : gpus;
    }
  }

  @WireJson
  public record GpuReport(
      @NotBlank @Size(max = 128) String uuid,
      @Min(0) int index,
      @NotBlank String model,
      @Positive long memoryMib,
      @Min(1) @Max(100) int coresPercent,
      @Min(1) int splitCount,
      boolean healthy) {}
}
