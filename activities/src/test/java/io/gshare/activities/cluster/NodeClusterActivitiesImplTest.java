package io.gshare.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.sim.SimSeed;
import io.gshare.sim.SimulatedCluster;
import io.gshare.workflows.kube.Annotations;
import io.gshare.workflows.node.EvictionRequest;
import io.gshare.workflows.node.EvictionResult;
import io.gshare.workflows.node.NodeClusterActivities;
import io.temporal.activity.ActivityOptions;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Cordon, eviction and the device cordon against the simulated apiserver, inside a Temporal activity context. */
class NodeClusterActivitiesImplTest {

  private SimulatedCluster sim;
  private KubernetesClient client;
  private TestActivityEnvironment env;
  private NodeClusterActivities activities;

  @BeforeEach
  void cluster() {
    sim = SimulatedCluster.start(new SimSeed("v1.36.0", List.of(new SimSeed.NodeSpec("gpu-1", "exclusive",
        new SimSeed.GpuSpec("NVIDIA H100 80GB HBM3", 2, 81559, null), Map.of())), null), SimulatedCluster.Options.defaults());
    client = sim.newClient();
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(new NodeClusterActivitiesImpl(client, Duration.ofMillis(200)));
    activities = env.newActivityStub(NodeClusterActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofMinutes(1)).setHeartbeatTimeout(Duration.ofSeconds(10)).build());
  }

  @AfterEach
  void close() {
    env.close();
    client.close();
    sim.close();
  }

  private Pod pod(String namespace, String name, Map<String, String> labels) {
    return client.pods().resource(new PodBuilder().withNewMetadata().withNamespace(namespace).withName(name)
        .withLabels(labels).endMetadata().withNewSpec().withNodeName("gpu-1").addNewContainer().withName("main")
        .withImage("registry.example.com/app:1").endContainer().endSpec().build()).create();
  }

  @Test
  void cordonAndUncordonSetAndClearUnschedulable() {
    activities.setUnschedulable("gpu-1", true);
    assertThat(client.nodes().withName("gpu-1").get().getSpec().getUnschedulable()).isTrue();
    activities.setUnschedulable("gpu-1", true);
    activities.setUnschedulable("gpu-1", false);
    assertThat(client.nodes().withName("gpu-1").get().getSpec().getUnschedulable()).as("removed, as kubectl uncordon does")
        .isNull();
  }

  @Test
  void evictionTakesEveryPodButDaemonSetOnesAndReportsWhatABudgetKeeps() {
    pod("team-a", "batch-1", Map.of("app", "batch"));
    Pod daemon = new PodBuilder(pod("monitoring", "exporter-gpu-1", Map.of("app", "exporter"))).build();
    daemon.getMetadata().setOwnerReferences(List.of(new OwnerReferenceBuilder().withApiVersion("apps/v1")
        .withKind("DaemonSet").withName("exporter").withUid("uid-1").withController(true).build()));
    client.pods().resource(daemon).update();
    pod("team-b", "db-0", Map.of("app", "db"));
    client.policy().v1().podDisruptionBudget().inNamespace("team-b").resource(new PodDisruptionBudgetBuilder()
        .withNewMetadata().withName("db").withNamespace("team-b").endMetadata().withNewSpec()
        .withMinAvailable(new IntOrString(1)).withNewSelector().addToMatchLabels("app", "db").endSelector().endSpec()
        .build()).create();
    for (int i = 0; i < 100 && !running(client.pods().inNamespace("team-b").withName("db-0").get()); i++) {
      sleep(100);
    }

    EvictionResult result = activities.evictPods(new EvictionRequest("gpu-1", System.currentTimeMillis() + 2_000));

    assertThat(result.evicted()).containsExactly("team-a/batch-1");
    assertThat(result.daemonSetPods()).isEqualTo(1);
    assertThat(result.blocked()).singleElement().asString().startsWith("team-b/db-0: eviction refused");
    assertThat(client.pods().inNamespace("team-a").withName("batch-1").get()).isNull();
    assertThat(client.pods().inNamespace("monitoring").withName("exporter-gpu-1").get()).isNotNull();

    client.policy().v1().podDisruptionBudget().inNamespace("team-b").withName("db").delete();
    EvictionResult second = activities.evictPods(new EvictionRequest("gpu-1", System.currentTimeMillis() + 10_000));
    assertThat(second.evicted()).containsExactly("team-b/db-0");
    assertThat(second.blocked()).isEmpty();
  }

  private static boolean running(Pod pod) {
    return pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void theDeviceCordonAnnotationIsExactlyTheGivenCards() {
    activities.setDeviceCordon("gpu-1", List.of("GPU-a", "GPU-b"));
    assertThat(client.nodes().withName("gpu-1").get().getMetadata().getAnnotations())
        .containsEntry(Annotations.HAMI_DEVICE_CORDON, "GPU-a,GPU-b");
    activities.setDeviceCordon("gpu-1", List.of());
    assertThat(client.nodes().withName("gpu-1").get().getMetadata().getAnnotations())
        .doesNotContainKey(Annotations.HAMI_DEVICE_CORDON);
  }
}
