package io.gshare.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.sim.SimSeed;
import io.gshare.sim.SimulatedCluster;
import io.gshare.workflows.cluster.ClusterActivities;
import io.gshare.workflows.cluster.ClusterDescription;
import io.gshare.workflows.cluster.NodeInfo;
import io.temporal.testing.TestActivityEnvironment;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Describes real apiserver responses from the simulator's stand-in, through a Temporal activity environment. */
class ClusterActivitiesImplMockTest {

  private SimulatedCluster cluster;
  private KubernetesClient client;
  private final TestActivityEnvironment env = TestActivityEnvironment.newInstance();

  @AfterEach
  void stop() {
    env.close();
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private ClusterActivities activitiesOn(SimSeed seed) {
    cluster = SimulatedCluster.start(seed, SimulatedCluster.Options.defaults());
    client = cluster.newClient();
    env.registerActivitiesImplementations(new ClusterActivitiesImpl(client));
    return env.newActivityStub(ClusterActivities.class);
  }

  @Test
  void describesTheDefaultSimulatedClusterNodeByNode() {
    ClusterDescription d = activitiesOn(SimulatedCluster.defaultSeed()).describeCluster();

    assertThat(d.serverVersion()).startsWith("v1.36.0");
    assertThat(d.simulated()).isTrue();
    assertThat(d.runtimeClassNvidia()).isTrue();
    assertThat(d.hamiDevicePlugin()).isTrue();
    assertThat(d.ingressController()).isTrue();
    assertThat(d.gpuCount()).isEqualTo(12);

    NodeInfo h100 = node(d, "sim-h100-0");
    assertThat(h100.ready()).isTrue();
    assertThat(h100.gpuMode()).isEqualTo("exclusive");
    assertThat(h100.gpuEnabled()).isTrue();
    assertThat(h100.losslessPause()).isTrue();
    assertThat(h100.gpus()).hasSize(8).allSatisfy(g -> {
      assertThat(g.model()).isEqualTo("NVIDIA H100 80GB HBM3");
      assertThat(g.uuid()).startsWith("GPU-");
      assertThat(g.splitCount()).isEqualTo(1);
    });

    NodeInfo a100 = node(d, "sim-a100-0");
    assertThat(a100.losslessPause()).isFalse();
    assertThat(a100.gpus()).hasSize(4).allSatisfy(g -> {
      assertThat(g.model()).isEqualTo("NVIDIA A100-SXM4-40GB");
      assertThat(g.memoryMib()).isEqualTo(40960);
      assertThat(g.splitCount()).isEqualTo(10);
    });
    assertThat(node(d, "sim-cpu-0").gpus()).isEmpty();
  }

  @Test
  void seesMissingAddonsAndDroppedNodes() {
    SimSeed bare = new SimSeed("v1.35.2",
        List.of(new SimSeed.NodeSpec("gpu-1", "fractional", new SimSeed.GpuSpec("NVIDIA L4", 1, 23034, null), Map.of())),
        new SimSeed.Addons(false, false, false));
    ClusterActivities activities = activitiesOn(bare);
    cluster.dropNode("gpu-1");

    ClusterDescription d = activities.describeCluster();

    assertThat(d.runtimeClassNvidia()).isFalse();
    assertThat(d.hamiDevicePlugin()).isFalse();
    assertThat(d.ingressController()).isFalse();
    assertThat(node(d, "gpu-1").ready()).isFalse();
  }

  private static NodeInfo node(ClusterDescription d, String name) {
    return d.nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
  }
}
