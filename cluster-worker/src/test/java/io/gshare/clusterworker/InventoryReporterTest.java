package io.gshare.clusterworker;

import io.gshare.contract.internal.InventoryReport;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.ClusterInventory;
import io.gshare.sim.SimSeed;
import io.gshare.sim.SimulatedCluster;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InventoryReporterTest {

  @Test
  void reportsEveryNodeAndGpuOfTheClusterInOneBatch() {
    SimSeed seed = new SimSeed("v1.36.0", List.of(
        new SimSeed.NodeSpec("gpu-a", "fractional", new SimSeed.GpuSpec("NVIDIA A100-SXM4-40GB", 2, 40960, 10),
            Map.of("gshare.io/criu", "ready", "team", "vision")),
        new SimSeed.NodeSpec("cpu-a", "cpu", null, Map.of())), null);
    try (SimulatedCluster cluster = SimulatedCluster.start(seed, SimulatedCluster.Options.defaults());
        KubernetesClient client = cluster.newClient()) {
      InventoryReport report = InventoryReporter.report("clu_a", ClusterInventory.read(client));

      assertThat(report.clusterId()).isEqualTo("clu_a");
      assertThat(report.apiserverVersion()).startsWith("v1.36.0");
      assertThat(report.nodes()).extracting(InventoryReport.NodeReport::hostname).containsExactlyInAnyOrder("gpu-a", "cpu-a");
      InventoryReport.NodeReport gpuNode = report.nodes().stream().filter(n -> n.hostname().equals("gpu-a")).findFirst().orElseThrow();
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
    }
  }

  @Test
  void saysWhetherTheWorkersTokenSecretExists() {
    try (SimulatedCluster cluster = SimulatedCluster.start(SimulatedCluster.defaultSeed(), SimulatedCluster.Options.defaults());
        KubernetesClient client = cluster.newClient()) {
      assertThat(InventoryReporter.tokenSecretPresent(client)).isFalse();
      client.resource(io.gshare.activities.cluster.model.WorkerObjects.tokenSecret("clu_a", "a.b.c")).create();
      assertThat(InventoryReporter.tokenSecretPresent(client)).isTrue();
      assertThat(InventoryReporter.report("clu_a", ClusterInventory.read(client), true).tokenSecretPresent()).isTrue();
    }
  }
}
