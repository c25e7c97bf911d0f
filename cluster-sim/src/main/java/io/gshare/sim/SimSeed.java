package io.gshare.sim;

import java.util.List;
import java.util.Map;

/**
 * What a simulated cluster starts with, read from YAML ({@code sim/default-cluster.yaml}).
 *
 * @param kubernetesVersion the version the stand-in reports, e.g. {@code v1.36.0}
 * @param addons which runtime add-ons exist; a missing block means all of them
 */
public record SimSeed(String kubernetesVersion, List<NodeSpec> nodes, Addons addons) {

  public SimSeed {
    kubernetesVersion = kubernetesVersion == null ? "v1.36.0" : kubernetesVersion;
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
    addons = addons == null ? new Addons(null, null, null) : addons;
    long distinct = nodes.stream().map(NodeSpec::name).distinct().count();
    if (distinct != nodes.size()) {
      throw new IllegalArgumentException("node names in a simulator seed must be unique");
    }
  }

  /** Null means present: a seed only names the add-ons it wants to take away. */
  public record Addons(Boolean runtimeClassNvidia, Boolean hamiDevicePlugin, Boolean ingressNginx) {

    public boolean hasRuntimeClassNvidia() {
      return runtimeClassNvidia == null || runtimeClassNvidia;
    }

    public boolean hasHamiDevicePlugin() {
      return hamiDevicePlugin == null || hamiDevicePlugin;
    }

    public boolean hasIngressNginx() {
      return ingressNginx == null || ingressNginx;
    }
  }

  /**
   * @param gpuMode {@code exclusive}, {@code fractional}, {@code cpu} or {@code storage}
   * @param gpus the node's GPUs; null for a node without any
   * @param labels extra labels, e.g. {@code gshare.io/criu: ready}
   */
  public record NodeSpec(String name, String gpuMode, GpuSpec gpus, Map<String, String> labels) {

    public NodeSpec {
      if (name == null || !name.matches("[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?")) {
        throw new IllegalArgumentException("node name must be a DNS-1123 subdomain, got " + name);
      }
      labels = labels == null ? Map.of() : Map.copyOf(labels);
      if (gpus != null && gpus.count() > 0 && ("cpu".equals(gpuMode) || "storage".equals(gpuMode))) {
        throw new IllegalArgumentException("node " + name + " has GPUs but gpuMode " + gpuMode);
      }
    }

    public boolean hasGpus() {
      return gpus != null && gpus.count() > 0;
    }
  }

  /**
   * @param model the NVML device name, e.g. {@code NVIDIA H100 80GB HBM3}
   * @param splitCount how many containers may share one GPU (HAMi's deviceSplitCount); by default 1
   *     on an exclusive node and 10 on a fractional one
   */
  public record GpuSpec(String model, int count, long memoryMib, Integer splitCount) {

    public GpuSpec {
      if (model == null || model.isBlank() || count < 0 || memoryMib <= 0) {
        throw new IllegalArgumentException("a GPU spec needs a model, a count >= 0 and memoryMib > 0");
      }
    }

    public int splitCountFor(String gpuMode) {
      if (splitCount != null) {
        return splitCount;
      }
      return "exclusive".equals(gpuMode) ? 1 : 10;
    }
  }
}
