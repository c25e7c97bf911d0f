package io.gshare.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.api.model.storage.CSIStorageCapacity;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The seed a simulated cluster starts from, read from YAML, and the objects {@link SimObjects} makes of it: the GPU
 * nodes as HAMi publishes them, the runtime add-ons gShare checks, the StorageClasses with their CSIStorageCapacity
 * and the nodes' disks. What every simulated cluster puts into its API ({@code kube/GpuNodes} into a real one); no
 * cluster runs here.
 */
class SimSeedTest {

  private static final String CLASS = "gshare-data";
  private static final String DRIVER = "org.democratic-csi.gshare-nfs";
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void theDefaultSeedsGpuNodesCarryWhatHamiPublishes() {
    Map<String, Node> nodes = nodes("seed", SimSeed.defaultSeed());

    Node h100 = nodes.get("sim-h100-0");
    assertThat(h100.getMetadata().getLabels())
        .containsEntry("gpu", "on")
        .containsEntry("gshare.io/gpu-mode", "exclusive")
        .containsEntry("gshare.io/simulated", "true")
        .containsEntry("gshare.io/criu", "ready");
    String register = h100.getMetadata().getAnnotations().get("hami.io/node-nvidia-register");
    assertThat(register).startsWith("[{\"id\":\"GPU-").contains("\"type\":\"NVIDIA-NVIDIA H100 80GB HBM3\"");
    assertThat(register.split("\"id\"")).hasSize(9);
    // the uuids the exporters label their series with
    for (int i = 0; i < 8; i++) {
      assertThat(register).contains("{\"id\":\"" + SimObjects.gpuUuid("seed", "sim-h100-0", i) + "\",\"index\":" + i + ",");
    }
    assertThat(h100.getStatus().getCapacity().get("nvidia.com/gpu").getAmount()).isEqualTo("8");

    Node a100 = nodes.get("sim-a100-0");
    assertThat(a100.getStatus().getCapacity().get("nvidia.com/gpu").getAmount()).isEqualTo("40");
    assertThat(a100.getStatus().getCapacity().get("nvidia.com/gpumem").getAmount()).isEqualTo("163840");
    assertThat(nodes.get("sim-cpu-0").getMetadata().getLabels()).doesNotContainKey("gpu");
  }

  @Test
  void gpuUuidsAreStableAndDifferBetweenClusters() {
    assertThat(SimObjects.gpuUuid("a", "sim-h100-0", 0)).isEqualTo(SimObjects.gpuUuid("a", "sim-h100-0", 0))
        .isNotEqualTo(SimObjects.gpuUuid("b", "sim-h100-0", 0))
        .isNotEqualTo(SimObjects.gpuUuid("a", "sim-h100-0", 1))
        .matches("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  }

  @Test
  void theDefaultSeedsAddOnsAreTheOnesGshareChecks() {
    List<HasMetadata> addons = SimObjects.addons(SimSeed.defaultSeed().addons());
    assertThat(addons).filteredOn(RuntimeClass.class::isInstance).map(RuntimeClass.class::cast)
        .singleElement().satisfies(r -> {
          assertThat(r.getMetadata().getName()).isEqualTo("nvidia");
          assertThat(r.getHandler()).isEqualTo("nvidia");
        });
    assertThat(addons).filteredOn(DaemonSet.class::isInstance)
        .filteredOn(d -> "kube-system".equals(d.getMetadata().getNamespace()))
        .filteredOn(d -> "hami-device-plugin".equals(d.getMetadata().getLabels().get("app.kubernetes.io/component")))
        .hasSize(1);
    assertThat(addons).filteredOn(Deployment.class::isInstance)
        .extracting(d -> d.getMetadata().getNamespace() + "/" + d.getMetadata().getName())
        .containsExactly("ingress-nginx/ingress-nginx-controller");
  }

  @Test
  void seedsTheDefaultStorageClassItsCapacityAndNodeDisks() {
    SimSeed seed = SimSeed.defaultSeed();
    List<HasMetadata> storage = SimObjects.storage(seed.storageClasses());

    StorageClass data = storage.stream().filter(StorageClass.class::isInstance).map(StorageClass.class::cast)
        .filter(c -> CLASS.equals(c.getMetadata().getName())).findFirst().orElseThrow();
    assertThat(data.getProvisioner()).isEqualTo(DRIVER);
    assertThat(data.getAllowVolumeExpansion()).isTrue();
    assertThat(data.getReclaimPolicy()).isEqualTo("Delete");
    assertThat(data.getVolumeBindingMode()).isEqualTo("Immediate");
    assertThat(data.getMetadata().getAnnotations()).containsEntry("storageclass.kubernetes.io/is-default-class", "true");

    // the driver's namespace comes with its capacity, so that a cluster can create the capacity into it
    assertThat(storage).filteredOn(Namespace.class::isInstance).extracting(n -> n.getMetadata().getName())
        .containsExactly("democratic-csi");
    List<CSIStorageCapacity> capacities = storage.stream().filter(CSIStorageCapacity.class::isInstance)
        .map(CSIStorageCapacity.class::cast).toList();
    assertThat(capacities).hasSize(1);
    CSIStorageCapacity capacity = capacities.get(0);
    assertThat(capacity.getStorageClassName()).isEqualTo(CLASS);
    assertThat(capacity.getMetadata().getNamespace()).isEqualTo("democratic-csi");
    assertThat(Quantity.getAmountInBytes(capacity.getCapacity())).isEqualByComparingTo(gib(2000));
    assertThat(Quantity.getAmountInBytes(capacity.getMaximumVolumeSize())).isEqualByComparingTo(gib(2000));
    assertThat(capacity.getNodeTopology()).as("an NFS share reaches every node").isNotNull();
    assertThat(capacity.getMetadata().getLabels()).containsEntry("csi.storage.k8s.io/drivername", DRIVER);

    Map<String, Node> nodes = nodes("seed", seed);
    for (Node node : nodes.values()) {
      assertThat(Quantity.getAmountInBytes(node.getStatus().getCapacity().get("ephemeral-storage")))
          .as(node.getMetadata().getName()).isEqualByComparingTo(gib(500));
    }
    assertThat(nodes.values()).filteredOn(n -> "storage".equals(n.getMetadata().getLabels().get("gshare.io/role")))
        .extracting(n -> n.getMetadata().getName()).containsExactly("sim-cpu-0");
  }

  @Test
  void readsStorageClassesAndNodeDisksFromASeedAndOldSeedsStillLoad() {
    SimSeed seed = read("""
        nodes:
          - name: disk-node
            gpuMode: storage
            ephemeralStorage: 750Gi
        storageClasses:
          - name: local-path
            provisioner: rancher.io/local-path
            volumeBindingMode: WaitForFirstConsumer
            capacities:
              - { capacity: 100Gi, nodeTopology: { matchLabels: { kubernetes.io/hostname: disk-node } } }
        """);
    SimSeed.StorageClassSpec localPath = seed.storageClasses().get(0);
    assertThat(localPath.expandable()).isFalse();
    assertThat(localPath.isDefault()).isFalse();
    assertThat(localPath.reclaimPolicy()).isEqualTo("Delete");
    assertThat(localPath.capacities().get(0).namespace()).isEqualTo("kube-system");
    Node node = SimObjects.node("x", seed.nodes().get(0), 0, "v1.36.0", NOW);
    assertThat(node.getStatus().getCapacity().get("ephemeral-storage")).isEqualTo(new Quantity("750Gi"));
    assertThat(node.getMetadata().getLabels()).containsEntry("gshare.io/role", "storage");
    CSIStorageCapacity published = (CSIStorageCapacity) SimObjects.storage(seed.storageClasses()).stream()
        .filter(o -> o instanceof CSIStorageCapacity).findFirst().orElseThrow();
    assertThat(published.getNodeTopology().getMatchLabels()).containsEntry("kubernetes.io/hostname", "disk-node");
    assertThat(published.getMaximumVolumeSize()).isNull();

    SimSeed old = read("nodes:\n  - { name: n1, gpuMode: cpu }\n");
    assertThat(old.storageClasses()).isEmpty();
    assertThat(old.nodes().get(0).ephemeralStorage()).isEqualTo("500Gi");
    assertThat(new SimSeed("v1.36.0", List.of(), null).storageClasses()).isEmpty();
    assertThatThrownBy(() -> new SimSeed.NodeSpec("n2", "cpu", null, Map.of(), "lots"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ephemeralStorage");
  }

  @Test
  void aSeedNamesOnlyTheAddOnsItTakesAway() {
    SimSeed seed = read("addons: { ingressNginx: false }\nnodes: []\n");
    assertThat(seed.addons().hasIngressNginx()).isFalse();
    assertThat(seed.addons().hasRuntimeClassNvidia()).isTrue();
    assertThat(SimObjects.addons(seed.addons())).extracting(o -> o.getMetadata().getName())
        .contains("nvidia", "hami-device-plugin").doesNotContain("ingress-nginx", "ingress-nginx-controller");
  }

  private static SimSeed read(String yaml) {
    return SimSeed.read(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)));
  }

  /** The seed's nodes as {@link SimObjects} makes them, by name. */
  private static Map<String, Node> nodes(String clusterName, SimSeed seed) {
    List<SimSeed.NodeSpec> specs = seed.nodes();
    return specs.stream().map(s -> SimObjects.node(clusterName, s, specs.indexOf(s), seed.kubernetesVersion(), NOW))
        .collect(Collectors.toMap(n -> n.getMetadata().getName(), Function.identity()));
  }

  private static BigDecimal gib(long n) {
    return BigDecimal.valueOf(n).multiply(BigDecimal.valueOf(1L << 30));
  }
}
