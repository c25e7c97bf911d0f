package io.gshare.clusterworker;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.ClusterInventory;
import io.gshare.activities.cluster.model.WorkerObjects;
import io.gshare.contract.internal.InventoryReport;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.KubeCluster;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The inventory report of a real apiserver's nodes (the module's shared cluster, with this test's own nodes). */
class InventoryReporterTest {

  private static KubeCluster cluster;
  private static KubernetesClient client;

  @BeforeAll
  static void cluster() {
    cluster = SharedKubeCluster.get();
    SharedKubeCluster.addNodes(
        new SimSeed.NodeSpec("inv-gpu-a", "fractional", new SimSeed.GpuSpec("NVIDIA A100-SXM4-40GB", 2, 40960, 10),
            Map.of("gshare.io/criu", "ready", "team", "vision")),
        new SimSeed.NodeSpec("inv-cpu-a", "cpu", null, Map.of()));
    client = cluster.newClient();
  }

  @AfterAll
  static void closeClient() {
    client.close();
  }

  @Test
  void reportsEveryNodeAndGpuOfTheClusterInOneBatch() {
    InventoryReport report = InventoryReporter.report("clu_a", ClusterInventory.read(client));

    assertThat(report.clusterId()).isEqualTo("clu_a");
    assertThat(report.apiserverVersion()).isEqualTo(cluster.kubernetes().serverVersion());
    // Every node of the cluster: the seed's, this test's, and any other test of the module added.
    assertThat(report.nodes()).extracting(InventoryReport.NodeReport::hostname)
        .contains("inv-gpu-a", "inv-cpu-a", "sim-h100-0", "sim-a100-0", "sim-cpu-0")
        .hasSize(client.nodes().list().getItems().size());
    InventoryReport.NodeReport gpuNode = report.nodes().stream().filter(n -> n.hostname().equals("inv-gpu-a")).findFirst().orElseThrow();
    assertThat(gpuNode.gpuMode()).isEqualTo("fractional");
    assertThat(gpuNode.ready()).isTrue();
    assertThat(gpuNode.gpus()).hasSize(2).allSatisfy(g -> {
      assertThat(g.model()).isEqualTo("NVIDIA A100-SXM4-40GB");
      assertThat(g.splitCount()).isEqualTo(10);
      assertThat(g.coresPercent()).isEqualTo(100);
    });
    // Only the labels gShare acts on travel; the cluster's own labels stay home.
    assertThat(gpuNode.labels()).containsEntry("gpu", "on").containsEntry("gshare.io/criu", "ready")
        .doesNotContainKey("team").doesNotContainKey("kubernetes.io/os");
    assertThat(gpuNode.capacity()).containsEntry("nvidia.com/gpu", "20").containsEntry("nvidia.com/gpumem", "81920");
    assertThat(report.nodes().stream().filter(n -> n.hostname().equals("inv-cpu-a")).findFirst().orElseThrow().gpus())
        .isEmpty();
  }

  @Test
  void saysWhetherTheWorkersTokenSecretExists() {
    SharedKubeCluster.ensureNamespace(client, WorkerObjects.NAMESPACE);
    assertThat(InventoryReporter.tokenSecretPresent(client)).isFalse();
    client.resource(WorkerObjects.tokenSecret("clu_a", "a.b.c")).create();
    try {
      assertThat(InventoryReporter.tokenSecretPresent(client)).isTrue();
      assertThat(InventoryReporter.report("clu_a", ClusterInventory.read(client), true).tokenSecretPresent()).isTrue();
    } finally {
      client.resource(WorkerObjects.tokenSecret("clu_a", "a.b.c")).delete();
    }
  }
}
