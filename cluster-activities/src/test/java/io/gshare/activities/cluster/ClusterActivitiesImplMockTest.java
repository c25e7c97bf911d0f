package io.gshare.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.SharedKubeCluster;
import io.gshare.sim.SimObjects;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.KubeCluster;
import io.gshare.workflows.cluster.ClusterActivities;
import io.gshare.workflows.cluster.ClusterDescription;
import io.gshare.workflows.cluster.NodeInfo;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Describes a real apiserver's answers (the module's shared cluster, the dev seed's nodes and add-ons), through a
 * Temporal activity environment. Other tests add nodes to that cluster, so this one checks the seed's nodes by name.
 */
class ClusterActivitiesImplMockTest {

  private static KubeCluster cluster;
  private static KubernetesClient client;
  private final TestActivityEnvironment env = TestActivityEnvironment.newInstance();
  private ClusterActivities activities;

  @BeforeAll
  static void start() {
    cluster = SharedKubeCluster.get();
    client = cluster.newClient();
  }

  @AfterAll
  static void closeClient() {
    client.close();
  }

  @BeforeEach
  void activities() {
    env.registerActivitiesImplementations(new ClusterActivitiesImpl(client));
    activities = env.newActivityStub(ClusterActivities.class);
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void describesTheDefaultSimulatedClusterNodeByNode() {
    ClusterDescription d = activities.describeCluster();

    assertThat(d.serverVersion()).isEqualTo(cluster.kubernetes().serverVersion()).startsWith("v1.");
    assertThat(d.simulated()).isTrue();
    assertThat(d.runtimeClassNvidia()).isTrue();
    assertThat(d.hamiDevicePlugin()).isTrue();
    assertThat(d.ingressController()).isTrue();
    assertThat(d.nodes().stream().filter(n -> n.name().startsWith("sim-")).mapToInt(n -> n.gpus().size()).sum())
        .as("the seed's GPUs").isEqualTo(12);
    assertThat(d.gpuCount()).isGreaterThanOrEqualTo(12);

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

  /**
   * The add-ons are taken away for the length of this test and put back after it (the module's tests run one at a
   * time; the session tests need RuntimeClass nvidia back).
   */
  @Test
  void seesMissingAddonsAndDroppedNodes() {
    List<HasMetadata> addons = SimObjects.addons(new SimSeed.Addons(null, null, null)).stream()
        .filter(o -> o instanceof RuntimeClass || o instanceof DaemonSet || o instanceof Deployment).toList();
    assertThat(addons).hasSize(3);
    // A node whose kubelet stopped posting its status: no KWOK plays it, and Ready is Unknown as the node lifecycle
    // controller writes it once the node's grace period has passed.
    Node dropped = SimObjects.node(SharedKubeCluster.NAME, new SimSeed.NodeSpec("describe-dropped-0", "fractional",
        new SimSeed.GpuSpec("NVIDIA L4", 1, 23034, null), Map.of()), 99, "v1.37.2", Instant.now());
    dropped.getMetadata().setCreationTimestamp(null);
    dropped.getStatus().setConditions(List.of(new NodeConditionBuilder().withType("Ready").withStatus("Unknown")
        .withReason("NodeStatusUnknown").withMessage("Kubelet stopped posting node status.").build()));
    client.resource(dropped).createOr(n -> n.update());
    try {
      addons.forEach(o -> client.resource(o).delete());

      ClusterDescription d = activities.describeCluster();

      assertThat(d.runtimeClassNvidia()).isFalse();
      assertThat(d.hamiDevicePlugin()).isFalse();
      assertThat(d.ingressController()).isFalse();
      assertThat(node(d, "describe-dropped-0").ready()).isFalse();
    } finally {
      addons.forEach(o -> {
        o.getMetadata().setResourceVersion(null);
        client.resource(o).createOr(n -> n.update());
      });
      client.nodes().withName("describe-dropped-0").delete();
    }
  }

  private static NodeInfo node(ClusterDescription d, String name) {
    return d.nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
  }
}
