package io.gshare.sim.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.sim.SimObjects;
import io.gshare.sim.SimSeed;
import io.gshare.workflows.kube.SimulatorInfo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dev seed as a {@link KubeCluster}: a control plane of its own with the seed's KWOK GPU nodes, the simulators
 * over its API, where they are published, the simulated exporters answering, KWOK's and gShare's stages running
 * pods, and the container runtime stand-in naming containers and listing images.
 */
class KubeClusterIT {

  private static KubeCluster cluster;
  private static KubernetesClient client;

  @BeforeAll
  static void start() {
    cluster = KubeCluster.start(SimSeed.defaultSeed(), KubeCluster.Options.defaults().withName("kube-cluster-it"));
    client = cluster.newClient();
  }

  @AfterAll
  static void stop() {
    client.close();
    cluster.close();
  }

  @Test
  void theSeedsNodesAreReadyAndTheSimulatorsArePublishedAndAnswer() throws Exception {
    assertThat(cluster.kubernetes().serverVersion()).isEqualTo("v1.37.2");
    assertThat(client.nodes().list().getItems()).extracting(n -> n.getMetadata().getName())
        .contains("sim-h100-0", "sim-a100-0", "sim-cpu-0");
    ConfigMap info = client.configMaps().inNamespace(SimulatorInfo.NAMESPACE).withName(SimulatorInfo.CONFIG_MAP).get();
    assertThat(info.getData()).containsEntry(SimulatorInfo.CGROUP_ROOT, cluster.cgroupRoot().toString())
        .containsEntry(SimulatorInfo.HAMI_MONITOR_URL, cluster.hamiMonitorUrl())
        .containsEntry(SimulatorInfo.DCGM_METRICS_URL, cluster.dcgmMetricsUrl());
    String uuid = SimObjects.gpuUuid("kube-cluster-it", "sim-h100-0", 3);
    assertThat(cluster.setGpuMetrics(uuid, 87, 0)).isTrue();
    HttpResponse<String> dcgm = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(cluster.dcgmMetricsUrl()))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(dcgm.body()).contains("DCGM_FI_DEV_GPU_UTIL{gpu=\"3\",UUID=\"" + uuid + "\"").contains("} 87\n");
  }

  @Test
  void podsRunWithNamedContainersTheirImagesAreListedAndABareCommandRunsToCompletion() {
    client.pods().inNamespace("default").resource(pod("runs", null)).create();
    client.pods().inNamespace("default").resource(pod("once", "true")).create();

    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Pod runs = client.pods().inNamespace("default").withName("runs").get();
      assertThat(runs.getStatus().getPhase()).isEqualTo("Running");
      assertThat(runs.getStatus().getContainerStatuses().get(0).getContainerID()).matches("containerd://[0-9a-f]{64}");
    });
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(client.pods().inNamespace("default")
        .withName("once").get().getStatus().getPhase()).isEqualTo("Succeeded"));
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(client.nodes().withName("sim-cpu-0").get()
        .getStatus().getImages()).anySatisfy(i -> assertThat(i.getNames()).contains("registry.example.com/tools/kube-cluster-it:1")));

    cluster.failPod("default", "runs", "OOMKilled");
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Pod failed = client.pods().inNamespace("default").withName("runs").get();
      assertThat(failed.getStatus().getPhase()).isEqualTo("Failed");
      assertThat(failed.getStatus().getReason()).isEqualTo("OOMKilled");
    });
  }

  @Test
  void hamisSchedulerHeldBindsNothingUntilResumed() throws Exception {
    Pod waiting = new PodBuilder(pod("waits-for-hami", null)).editSpec().withNodeName(null)
        .withSchedulerName(HamiSchedulerStandIn.SCHEDULER_NAME)
        .withNodeSelector(Map.of("kubernetes.io/hostname", "sim-cpu-0")).endSpec().build();
    cluster.hami().holdBinding();
    try {
      client.pods().inNamespace("default").resource(waiting).create();
      Thread.sleep(3_000); // several of the stand-in's passes
      assertThat(client.pods().inNamespace("default").withName("waits-for-hami").get().getSpec().getNodeName())
          .as("bound while held").isNull();
    } finally {
      cluster.hami().resumeBinding();
    }
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Pod bound = client.pods().inNamespace("default").withName("waits-for-hami").get();
      assertThat(bound.getSpec().getNodeName()).isEqualTo("sim-cpu-0");
      assertThat(bound.getStatus().getPhase()).isEqualTo("Running");
    });
  }

  /**
   * A node whose kubelet went silent ({@link KubeCluster#dropNode}) runs nothing bound to it until it comes back.
   * KWOK v0.8.0 honours node leases in its pod controller only when its node controller started first, which its
   * local stages leave to a map's order; {@link LocalKubernetes} starts them in turn.
   */
  @Test
  void aDroppedNodeRunsNothingUntilRestored() throws Exception {
    cluster.dropNode("sim-h100-0");
    try {
      Thread.sleep(1_000); // KWOK learns of the lease through its watch
      client.pods().inNamespace("default").resource(new PodBuilder(pod("on-a-silent-node", null)).editSpec()
          .withNodeName("sim-h100-0").endSpec().build()).create();
      Thread.sleep(5_000);
      assertThat(client.pods().inNamespace("default").withName("on-a-silent-node").get().getStatus().getPhase())
          .as("a pod bound to a silent node").isEqualTo("Pending");
    } finally {
      cluster.restoreNode("sim-h100-0");
    }
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(client.pods().inNamespace("default")
        .withName("on-a-silent-node").get().getStatus().getPhase()).isEqualTo("Running"));
  }

  private static Pod pod(String name, String command) {
    PodBuilder builder = new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
        .withNodeName("sim-cpu-0").withRestartPolicy("Never").addNewContainer().withName("main")
        .withImage("registry.example.com/tools/kube-cluster-it:1").endContainer().endSpec();
    if (command != null) {
      builder.editSpec().editFirstContainer().withCommand("sh", "-c", command).endContainer().endSpec();
    }
    return builder.build();
  }
}
