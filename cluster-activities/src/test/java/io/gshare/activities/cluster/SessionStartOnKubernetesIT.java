package io.gshare.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.model.SessionObjects;
import io.gshare.sim.SimObjects;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.GpuNodes;
import io.gshare.sim.kube.HamiSchedulerStandIn;
import io.gshare.sim.kube.LocalKubernetes;
import io.gshare.workflows.common.FailureTypes;
import io.gshare.workflows.session.GpuPlacement;
import io.gshare.workflows.session.PodPhase;
import io.gshare.workflows.session.PodState;
import io.gshare.workflows.session.SessionClusterActivities;
import io.gshare.workflows.session.SessionPod;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
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
 * A session's start on a real apiserver: the worker's objects admitted by it, the pod placed by the HAMi scheduler
 * stand-in (HAMi's protocol: the chosen card only, its annotations, its refusals in its words) and run by KWOK; a
 * card HAMi still holds cordoned after gShare uncordoned it fails the start in words instead of waiting, and starts
 * once HAMi is restarted; a cluster without RuntimeClass {@code nvidia} refuses the pod, said in words.
 */
class SessionStartOnKubernetesIT {

  private static final String CLUSTER = "start-it";
  private static final String EXCLUSIVE = "start-h100-0";
  private static final String FRACTIONAL = "start-a100-0";

  private static KubernetesClient client;
  private static HamiSchedulerStandIn hami;
  private TestActivityEnvironment env;
  private SessionClusterActivities activities;

  @BeforeAll
  static void cluster() {
    client = LocalKubernetes.shared().newClient();
    new GpuNodes(client, CLUSTER).seed(new SimSeed("v1.37.2", List.of(
        new SimSeed.NodeSpec(EXCLUSIVE, "exclusive", new SimSeed.GpuSpec("NVIDIA H100 80GB HBM3", 2, 81559, null),
            Map.of(), null),
        new SimSeed.NodeSpec(FRACTIONAL, "fractional", new SimSeed.GpuSpec("NVIDIA A100-SXM4-40GB", 1, 40960, 4),
            Map.of(), null)), null), Duration.ofSeconds(60));
    hami = HamiSchedulerStandIn.start(client, Duration.ofMillis(200));
  }

  @AfterAll
  static void close() {
    hami.close();
    client.close();
  }

  @BeforeEach
  void activities() {
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(new SessionClusterActivitiesImpl(client, Duration.ofMillis(200),
        Duration.ofSeconds(1), Duration.ofSeconds(2)));
    activities = env.newActivityStub(SessionClusterActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(90)).setHeartbeatTimeout(Duration.ofSeconds(20))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build()).build());
  }

  @AfterEach
  void stop() {
    env.close();
    client.pods().inNamespace(SessionObjects.NAMESPACE).delete();
    await().atMost(Duration.ofSeconds(30)).until(() -> client.pods().inNamespace(SessionObjects.NAMESPACE).list()
        .getItems().isEmpty());
    new NodeClusterActivitiesImpl(client).setDeviceCordon(EXCLUSIVE, List.of());
    hami.restart();
  }

  @Test
  void aSessionRunsOnTheCardGshareChoseWithTheAnnotationsHamiWrites() {
    String card = uuid(EXCLUSIVE, 1);
    PodState state = activities.startPod(session("ses_exclusive", exclusive(card)));

    assertThat(state.phase()).isEqualTo(PodPhase.RUNNING);
    assertThat(state.hostname()).isEqualTo(EXCLUSIVE);
    // KWOK marks the pod Running on its own clock, so the stand-in's Allocate may land just after it.
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(pod("ses_exclusive").getMetadata()
        .getAnnotations()).containsEntry(HamiSchedulerStandIn.VGPU_NODE, EXCLUSIVE)
        .containsEntry(HamiSchedulerStandIn.DEVICES_ALLOCATED, card + ",NVIDIA,81559,100:;")
        .containsEntry(HamiSchedulerStandIn.BIND_PHASE, "success"));
    await().atMost(Duration.ofSeconds(5)).until(() -> client.nodes().withName(EXCLUSIVE).get().getMetadata()
        .getAnnotations().get(HamiSchedulerStandIn.NODE_LOCK) == null);
  }

  @Test
  void slicesShareACardUntilItsSplitCountAndHamiRefusesTheNextInItsWords() {
    String card = uuid(FRACTIONAL, 0);
    for (int i = 0; i < 4; i++) {
      assertThat(activities.startPod(session("ses_slice_" + i, slice(card, 8000, 25))).phase()).isEqualTo(PodPhase.RUNNING);
    }
    client.resource(SessionObjects.pod(session("ses_slice_4", slice(card, 8000, 25)))).create();

    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(scheduledMessage("ses_slice_4"))
        .isEqualTo("0/%d nodes are available: 1 CardTimeSlicingExhausted, %d node(s) didn't match Pod's node "
            + "affinity/selector.", nodeCount(), nodeCount() - 1));
  }

  @Test
  void aCardHamiStillHoldsCordonedFailsTheStartInWordsAndStartsOnceHamiIsRestarted() {
    NodeClusterActivitiesImpl nodes = new NodeClusterActivitiesImpl(client);
    String card = uuid(EXCLUSIVE, 0);
    nodes.setDeviceCordon(EXCLUSIVE, List.of(card));
    hami.restart(); // HAMi registers the node with the cordon ...
    await().atMost(Duration.ofSeconds(5)).until(() -> hami.cordonsHeld(EXCLUSIVE).contains(card));
    nodes.setDeviceCordon(EXCLUSIVE, List.of()); // ... and does not see gShare's uncordon

    assertThatThrownBy(() -> activities.startPod(session("ses_stale", exclusive(card))))
        .isInstanceOf(ActivityFailure.class)
        .cause().isInstanceOfSatisfying(ApplicationFailure.class, f -> {
          assertThat(f.getType()).isEqualTo(FailureTypes.CARD_CORDON_NOT_SEEN);
          assertThat(f.getOriginalMessage()).contains("HAMi's scheduler refuses " + card + " on " + EXCLUSIVE)
              .contains("1 CardCordoned").contains("gShare holds them uncordoned")
              .contains("Restart HAMi's scheduler");
        });

    hami.restart();
    assertThat(activities.awaitRunning("ses_stale").hostname()).isEqualTo(EXCLUSIVE);
  }

  @Test
  void withoutRuntimeClassNvidiaTheApiserverRefusesThePodAndTheStartSaysWhy() {
    RuntimeClass nvidia = client.resources(RuntimeClass.class).withName("nvidia").get();
    client.resource(nvidia).delete();
    await().atMost(Duration.ofSeconds(10)).until(() -> client.resources(RuntimeClass.class).withName("nvidia")
        .get() == null);
    try {
      assertThatThrownBy(() -> activities.startPod(session("ses_no_runtime", exclusive(uuid(EXCLUSIVE, 1)))))
          .isInstanceOf(ActivityFailure.class)
          .cause().isInstanceOfSatisfying(ApplicationFailure.class, f -> {
            assertThat(f.getType()).isEqualTo(FailureTypes.POD_REFUSED);
            assertThat(f.getOriginalMessage()).contains("no RuntimeClass 'nvidia'")
                .contains("hack/cluster-bootstrap.sh addons");
          });
      assertThat(pod("ses_no_runtime")).isNull();
    } finally {
      nvidia.getMetadata().setResourceVersion(null);
      nvidia.getMetadata().setUid(null);
      client.resource(nvidia).create();
    }
  }

  private static String uuid(String node, int index) {
    return SimObjects.gpuUuid(CLUSTER, node, index);
  }

  private static GpuPlacement exclusive(String card) {
    return new GpuPlacement("clu_1", "nod_1", EXCLUSIVE, "exclusive", "NVIDIA H100 80GB HBM3", List.of(card), null,
        null, false);
  }

  private static GpuPlacement slice(String card, int memoryMib, int cores) {
    return new GpuPlacement("clu_1", "nod_2", FRACTIONAL, "fractional", "NVIDIA A100-SXM4-40GB", List.of(card),
        memoryMib, cores, false);
  }

  private static SessionPod session(String id, GpuPlacement placement) {
    return new SessionPod(id, "usr_1", placement, "registry.example.com/jupyter:1", 8888, "/", "gshare.lab.example.com",
        "https://gshare.example.com/internal/connect/verify", null, null);
  }

  private static Pod pod(String sessionId) {
    return client.pods().inNamespace(SessionObjects.NAMESPACE).withName(SessionObjects.name(sessionId)).get();
  }

  private static String scheduledMessage(String sessionId) {
    Pod pod = pod(sessionId);
    return pod.getStatus() == null || pod.getStatus().getConditions() == null ? null
        : pod.getStatus().getConditions().stream().filter(c -> "PodScheduled".equals(c.getType()))
            .map(c -> c.getMessage()).findFirst().orElse(null);
  }

  private static int nodeCount() {
    return client.nodes().list().getItems().size();
  }
}
