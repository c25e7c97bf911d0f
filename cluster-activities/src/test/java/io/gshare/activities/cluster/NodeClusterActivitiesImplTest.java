package io.gshare.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gshare.activities.SharedKubeCluster;
import io.gshare.sim.SimSeed;
import io.gshare.workflows.kube.Annotations;
import io.gshare.workflows.node.EvictionRequest;
import io.gshare.workflows.node.EvictionResult;
import io.gshare.workflows.node.NodeClusterActivities;
import io.temporal.activity.ActivityOptions;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cordon, eviction and the device cordon on a real apiserver (the module's shared cluster: the eviction API, the
 * disruption controller's budgets, a DaemonSet's own pod), inside a Temporal activity context. The drain's node is
 * tainted so that the scheduler puts nothing of other tests there: only this test's pods, bound to it by name.
 */
class NodeClusterActivitiesImplTest {

  private static final String NODE = "node-test-0";
  private static final String DRAINED = "node-drain-0";
  private static final String ISOLATED = "gshare.io/test-isolated";

  private static KubernetesClient client;
  private TestActivityEnvironment env;
  private NodeClusterActivities activities;

  @BeforeAll
  static void cluster() {
    SharedKubeCluster.addNodes(new SimSeed.NodeSpec(NODE, "cpu", null, Map.of()),
        new SimSeed.NodeSpec(DRAINED, "cpu", null, Map.of()));
    client = SharedKubeCluster.get().newClient();
    // A merge patch, not edit(): edit sends the resourceVersion it read, and KWOK writes the new node's status
    // meanwhile (a 409 Conflict seen in a CI run).
    client.nodes().withName(DRAINED).patch(PatchContext.of(
        PatchType.JSON_MERGE),
        "{\"spec\":{\"taints\":[{\"key\":\"" + ISOLATED + "\",\"effect\":\"NoSchedule\"}]}}");
    for (String namespace : List.of("team-a", "team-b", "monitoring")) {
      SharedKubeCluster.ensureNamespace(client, namespace);
    }
  }

  @AfterAll
  static void closeClient() {
    client.close();
  }

  @BeforeEach
  void activities() {
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(new NodeClusterActivitiesImpl(client, Duration.ofMillis(200)));
    activities = env.newActivityStub(NodeClusterActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofMinutes(2)).setHeartbeatTimeout(Duration.ofSeconds(20)).build());
  }

  @AfterEach
  void close() {
    env.close();
  }

  private Pod pod(String namespace, String name, Map<String, String> labels) {
    return client.pods().resource(new PodBuilder().withNewMetadata().withNamespace(namespace).withName(name)
        .withLabels(labels).endMetadata().withNewSpec().withNodeName(DRAINED).addNewContainer().withName("main")
        .withImage("registry.example.com/app:1").endContainer().endSpec().build()).create();
  }

  @Test
  void cordonAndUncordonSetAndClearUnschedulable() {
    activities.setUnschedulable(NODE, true);
    assertThat(client.nodes().withName(NODE).get().getSpec().getUnschedulable()).isTrue();
    activities.setUnschedulable(NODE, true);
    activities.setUnschedulable(NODE, false);
    assertThat(client.nodes().withName(NODE).get().getSpec().getUnschedulable()).as("removed, as kubectl uncordon does")
        .isNull();
  }

  @Test
  void evictionTakesEveryPodButDaemonSetOnesAndReportsWhatABudgetKeeps() {
    pod("team-a", "batch-1", Map.of("app", "batch"));
    // A real DaemonSet's pod on the node (its controller makes it; the garbage collector would delete a pod whose
    // owner does not exist).
    client.apps().daemonSets().inNamespace("monitoring").resource(new DaemonSetBuilder().withNewMetadata()
        .withName("exporter").withNamespace("monitoring").endMetadata().withNewSpec().withNewSelector()
        .addToMatchLabels("app", "exporter").endSelector().withNewTemplate().withNewMetadata()
        .addToLabels("app", "exporter").endMetadata().withNewSpec()
        .addToNodeSelector("kubernetes.io/hostname", DRAINED).addNewToleration().withKey(ISOLATED)
        .withOperator("Exists").endToleration().addNewContainer().withName("exporter")
        .withImage("registry.example.com/exporter:1").endContainer().endSpec().endTemplate().endSpec().build())
        .create();
    pod("team-b", "db-0", Map.of("app", "db"));
    client.policy().v1().podDisruptionBudget().inNamespace("team-b").resource(new PodDisruptionBudgetBuilder()
        .withNewMetadata().withName("db").withNamespace("team-b").endMetadata().withNewSpec()
        .withMinAvailable(new IntOrString(1)).withNewSelector().addToMatchLabels("app", "db").endSelector().endSpec()
        .build()).create();
    await().atMost(Duration.ofSeconds(30)).until(() -> running(client.pods().inNamespace("team-b").withName("db-0").get())
        && client.pods().inNamespace("monitoring").withLabel("app", "exporter").list().getItems().stream()
            .anyMatch(NodeClusterActivitiesImplTest::running));

    // 8 s: the evicted pod must be gone before the deadline (it is waited for), the budget's pod is refused till then.
    EvictionResult result = activities.evictPods(new EvictionRequest(DRAINED, System.currentTimeMillis() + 8_000));

    assertThat(result.evicted()).containsExactly("team-a/batch-1");
    assertThat(result.daemonSetPods()).isEqualTo(1);
    assertThat(result.blocked()).singleElement().asString().startsWith("team-b/db-0: eviction refused");
    assertThat(client.pods().inNamespace("team-a").withName("batch-1").get()).isNull();
    assertThat(client.pods().inNamespace("monitoring").withLabel("app", "exporter").list().getItems())
        .as("a DaemonSet's pod stays").singleElement().satisfies(p -> assertThat(p.getSpec().getNodeName()).isEqualTo(DRAINED));

    client.policy().v1().podDisruptionBudget().inNamespace("team-b").withName("db").delete();
    EvictionResult second = activities.evictPods(new EvictionRequest(DRAINED, System.currentTimeMillis() + 30_000));
    assertThat(second.evicted()).containsExactly("team-b/db-0");
    assertThat(second.blocked()).isEmpty();
  }

  private static boolean running(Pod pod) {
    return pod != null && pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
  }

  @Test
  void theDeviceCordonAnnotationIsExactlyTheGivenCards() {
    activities.setDeviceCordon(NODE, List.of("GPU-a", "GPU-b"));
    assertThat(client.nodes().withName(NODE).get().getMetadata().getAnnotations())
        .containsEntry(Annotations.HAMI_DEVICE_CORDON, "GPU-a,GPU-b");
    activities.setDeviceCordon(NODE, List.of());
    assertThat(client.nodes().withName(NODE).get().getMetadata().getAnnotations())
        .doesNotContainKey(Annotations.HAMI_DEVICE_CORDON);
  }
}
