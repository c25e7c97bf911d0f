package io.gshare.sim;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a simulated cluster starts with, read from YAML ({@code sim/default-cluster.yaml}).
 *
 * @param kubernetesVersion the version the stand-in reports, e.g. {@code v1.36.0}
 * @param addons which runtime add-ons exist; a missing block means all of them
 * @param storageClasses the cluster's StorageClasses (storage.k8s.io/v1) and their CSIStorageCapacity
 *     objects; none when absent
 */
public record SimSeed(String kubernetesVersion, List<NodeSpec> nodes, Addons addons, List<StorageClassSpec> storageClasses) {

  @JsonCreator
  public SimSeed {
    kubernetesVersion = kubernetesVersion == null ? "v1.36.0" : kubernetesVersion;
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
    addons = addons == null ? new Addons(null, null, null) : addons;
    storageClasses = storageClasses == null ? List.of() : List.copyOf(storageClasses);
    long distinct = nodes.stream().map(NodeSpec::name).distinct().count();
    if (distinct != nodes.size()) {
      throw new IllegalArgumentException("node names in a simulator seed must be unique");
    }
    if (storageClasses.stream().map(StorageClassSpec::name).distinct().count() != storageClasses.size()) {
      throw new IllegalArgumentException("storage class names in a simulator seed must be unique");
    }
  }

  /** The dev seed, {@code sim/default-cluster.yaml} on the classpath (what the dev runtime and most tests start). */
  public static SimSeed defaultSeed() {
    try (InputStream in = SimSeed.class.getResourceAsStream("/sim/default-cluster.yaml")) {
      return read(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A seed from a YAML file ({@code --seed}). */
  public static SimSeed read(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return read(in);
    }
  }

  /** A seed from its YAML. */
  public static SimSeed read(InputStream yaml) {
    return new KubernetesSerialization().unmarshal(yaml, SimSeed.class);
  }

  /** A seed without storage classes, as seeds were before the simulator had storage. */
  public SimSeed(String kubernetesVersion, List<NodeSpec> nodes, Addons addons) {
    this(kubernetesVersion, nodes, addons, null);
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
   * @param ephemeralStorage the node's {@code status.capacity["ephemeral-storage"]} (the kubelet's root file
   *     system), a quantity; {@value #DEFAULT_EPHEMERAL_STORAGE} when absent
   */
  public record NodeSpec(String name, String gpuMode, GpuSpec gpus, Map<String, String> labels, String ephemeralStorage) {

    public static final String DEFAULT_EPHEMERAL_STORAGE = "500Gi";

    @JsonCreator
    public NodeSpec {
      if (name == null || !name.matches("[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?")) {
        throw new IllegalArgumentException("node name must be a DNS-1123 subdomain, got " + name);
      }
      labels = labels == null ? Map.of() : Map.copyOf(labels);
      if (gpus != null && gpus.count() > 0 && ("cpu".equals(gpuMode) || "storage".equals(gpuMode))) {
        throw new IllegalArgumentException("node " + name + " has GPUs but gpuMode " + gpuMode);
      }
      ephemeralStorage = ephemeralStorage == null ? DEFAULT_EPHEMERAL_STORAGE : ephemeralStorage;
      requirePositive(ephemeralStorage, "node " + name + " ephemeralStorage");
    }

    /** A node with the default ephemeral storage. */
    public NodeSpec(String name, String gpuMode, GpuSpec gpus, Map<String, String> labels) {
      this(name, gpuMode, gpus, labels, null);
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

  /**
   * A StorageClass (storage.k8s.io/v1) and the capacity its CSI driver publishes.
   *
   * @param provisioner the CSI driver's name, e.g. {@code org.democratic-csi.gshare-nfs}
   * @param allowVolumeExpansion whether bound claims may grow; false when absent, as in Kubernetes
   * @param reclaimPolicy {@code Delete} (when absent) or {@code Retain}
   * @param volumeBindingMode {@code Immediate} (when absent) or {@code WaitForFirstConsumer}
   * @param defaultClass true: annotated {@code storageclass.kubernetes.io/is-default-class: "true"}
   * @param capacities the CSIStorageCapacity objects published for this class; none when absent
   */
  public record StorageClassSpec(String name, String provisioner, Boolean allowVolumeExpansion, String reclaimPolicy,
      String volumeBindingMode, Boolean defaultClass, List<CapacitySpec> capacities) {

    private static final Set<String> RECLAIM_POLICIES = Set.of("Delete", "Retain");
    private static final Set<String> BINDING_MODES = Set.of("Immediate", "WaitForFirstConsumer");

    public StorageClassSpec {
      if (name == null || !name.matches("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")) {
        throw new IllegalArgumentException("storage class name must be a DNS-1123 subdomain, got " + name);
      }
      if (provisioner == null || provisioner.isBlank()) {
        throw new IllegalArgumentException("storage class " + name + " needs a provisioner");
      }
      reclaimPolicy = reclaimPolicy == null ? "Delete" : reclaimPolicy;
      volumeBindingMode = volumeBindingMode == null ? "Immediate" : volumeBindingMode;
      if (!RECLAIM_POLICIES.contains(reclaimPolicy)) {
        throw new IllegalArgumentException("storage class " + name + ": reclaimPolicy is Delete or Retain, got " + reclaimPolicy);
      }
      if (!BINDING_MODES.contains(volumeBindingMode)) {
        throw new IllegalArgumentException("storage class " + name
            + ": volumeBindingMode is Immediate or WaitForFirstConsumer, got " + volumeBindingMode);
      }
      capacities = capacities == null ? List.of() : List.copyOf(capacities);
    }

    public boolean expandable() {
      return Boolean.TRUE.equals(allowVolumeExpansion);
    }

    public boolean isDefault() {
      return Boolean.TRUE.equals(defaultClass);
    }
  }

  /**
   * A CSIStorageCapacity (storage.k8s.io/v1) of the enclosing storage class.
   *
   * @param namespace where the object lives (the CSI driver's namespace); {@code kube-system} when absent
   * @param name the object's name; {@code <class>-<index>} when absent
   * @param capacity the free capacity, a quantity such as {@code 2000Gi}
   * @param maximumVolumeSize the largest volume that can be created; absent: not published
   * @param nodeTopology the nodes that reach this capacity; {@code {}} (every node) when absent
   */
  public record CapacitySpec(String namespace, String name, String capacity, String maximumVolumeSize,
      LabelSelector nodeTopology) {

    public CapacitySpec {
      namespace = namespace == null ? "kube-system" : namespace;
      requirePositive(capacity, "capacity");
      if (maximumVolumeSize != null) {
        requirePositive(maximumVolumeSize, "maximumVolumeSize");
      }
      nodeTopology = nodeTopology == null ? new LabelSelector() : nodeTopology;
    }
  }

  private static void requirePositive(String quantity, String what) {
    BigDecimal bytes;
    try {
      bytes = Quantity.getAmountInBytes(new Quantity(quantity));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(what + " must be a quantity such as 500Gi, got " + quantity);
    }
    if (bytes.signum() <= 0) {
      throw new IllegalArgumentException(what + " must be positive, got " + quantity);
    }
  }
}
