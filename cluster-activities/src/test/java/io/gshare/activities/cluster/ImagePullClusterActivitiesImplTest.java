package io.gshare.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.SharedKubeCluster;
import io.gshare.activities.cluster.model.PrepullObjects;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.KubeCluster;
import io.gshare.workflows.image.ImagePullClusterActivities;
import io.gshare.workflows.image.ImagePullRequest;
import io.gshare.workflows.image.ImagePullResult;
import io.gshare.workflows.image.NodePull;
import io.temporal.activity.ActivityOptions;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Image pre-pull on a real apiserver (the module's shared cluster): KWOK's kubelets run the pull pods, the container
 * runtime stand-in lists what they pulled in the nodes' {@code status.images} and fails a pull when told to, inside
 * a Temporal activity context. The nodes are shared by the tests, so each test pulls its own reference.
 */
class ImagePullClusterActivitiesImplTest {

  private static final String REF = "registry.example.com/gshare/jupyter:2026.11";
  private static final String NODE_0 = "pull-gpu-0";
  private static final String NODE_1 = "pull-gpu-1";
  private static final String NODE_2 = "pull-gpu-2";

  private static KubeCluster sim;
  private static KubernetesClient client;
  private TestActivityEnvironment env;
  private ImagePullClusterActivities activities;

  @BeforeAll
  static void cluster() {
    SimSeed.GpuSpec gpu = new SimSeed.GpuSpec("NVIDIA RTX A6000", 1, 49140, null);
    sim = SharedKubeCluster.get();
    SharedKubeCluster.addNodes(new SimSeed.NodeSpec(NODE_0, "exclusive", gpu, Map.of()),
        new SimSeed.NodeSpec(NODE_1, "exclusive", gpu, Map.of()), new SimSeed.NodeSpec(NODE_2, "exclusive", gpu, Map.of()));
    client = sim.newClient();
  }

  @AfterAll
  static void closeClient() {
    client.close();
  }

  @BeforeEach
  void activities() {
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(new ImagePullClusterActivitiesImpl(client, Duration.ofMillis(200),
        Duration.ofSeconds(30)));
    activities = env.newActivityStub(ImagePullClusterActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofMinutes(1)).setHeartbeatTimeout(Duration.ofSeconds(10)).build());
  }

  @AfterEach
  void close() {
    env.close();
  }

  /** The pull pods of this reference left in the namespace (gone at once: deleted with no grace period). */
  private List<Pod> pullPods(String ref) {
    return client.pods().inNamespace(PrepullObjects.NAMESPACE).withLabel(PrepullObjects.IMAGE_LABEL).list().getItems()
        .stream().filter(p -> p.getSpec().getContainers().get(0).getImage().equals(ref)).toList();
  }

  private List<String> imagesOn(String node) {
    var images = client.nodes().withName(node).get().getStatus().getImages();
    return images == null ? List.of() : images.stream().flatMap(i -> i.getNames().stream()).toList();
  }

  @Test
  void eachNodePullsThroughItsOwnPodAndASecondPullSkipsThemAll() {
    String ref = REF + "-skip";
    ImagePullResult first = activities.pull(new ImagePullRequest("img_1", ref, List.of(NODE_0, NODE_1)));

    assertThat(first.nodes()).containsExactly(NodePull.pulled(NODE_0), NodePull.pulled(NODE_1));
    // The stand-in lists a pulled image on its next pass; the second pull below reads the list.
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      assertThat(imagesOn(NODE_0)).contains(ref);
      assertThat(imagesOn(NODE_1)).contains(ref);
    });
    assertThat(imagesOn(NODE_2)).doesNotContain(ref);
    assertThat(pullPods(ref)).as("the pull pods are deleted once they answered").isEmpty();

    ImagePullResult second = activities.pull(new ImagePullRequest("img_1", ref, List.of(NODE_0, NODE_1, NODE_2)));

    assertThat(second.nodes()).containsExactly(NodePull.alreadyPresent(NODE_0), NodePull.alreadyPresent(NODE_1),
        NodePull.pulled(NODE_2));
  }

  @Test
  void aNodeWhosePullFailsIsReportedWithTheKubeletsReasonAndTheOthersStillPull() {
    String ref = REF + "-fails";
    sim.failImagePulls(NODE_1, ref, "write /var/lib/containerd/tmpmounts: no space left on device");

    ImagePullResult result = activities.pull(new ImagePullRequest("img_1", ref, List.of(NODE_0, NODE_1, NODE_2)));

    assertThat(result.nodes()).extracting(NodePull::hostname, NodePull::outcome).containsExactly(
        Tuple.tuple(NODE_0, NodePull.PULLED),
        Tuple.tuple(NODE_1, NodePull.FAILED),
        Tuple.tuple(NODE_2, NodePull.PULLED));
    assertThat(result.nodes().get(1).detail()).startsWith("ErrImagePull: ").contains(ref)
        .contains("no space left on device");
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(imagesOn(NODE_0)).contains(ref));
    assertThat(imagesOn(NODE_1)).doesNotContain(ref);
    assertThat(pullPods(ref)).isEmpty();
  }

  @Test
  void anUnknownNodeIsReportedFailedWithoutStoppingTheRest() {
    String ref = REF + "-unknown";
    ImagePullResult result = activities.pull(new ImagePullRequest("img_1", ref, List.of("gone-7", NODE_2)));

    assertThat(result.nodes().get(0).outcome()).isEqualTo(NodePull.FAILED);
    assertThat(result.nodes().get(0).detail()).contains("no node gone-7");
    assertThat(result.nodes().get(1)).isEqualTo(NodePull.pulled(NODE_2));
  }

  @Test
  void thePullPodIsPinnedNeverRestartedAndNamedByReferenceAndNode() {
    Pod pod = PrepullObjects.pod("img_1", REF, "gpu-0");
    assertThat(pod.getSpec().getNodeName()).isEqualTo("gpu-0");
    assertThat(pod.getSpec().getRestartPolicy()).isEqualTo("Never");
    assertThat(pod.getSpec().getContainers().get(0).getImagePullPolicy()).isEqualTo("IfNotPresent");
    assertThat(pod.getMetadata().getName()).isEqualTo(PrepullObjects.podName(REF, "gpu-0"))
        .isNotEqualTo(PrepullObjects.podName(REF, "gpu-1")).startsWith("gshare-prepull-").hasSizeLessThanOrEqualTo(63);
    assertThat(pod.getMetadata().getLabels()).containsEntry("app.kubernetes.io/managed-by", "gshare");
  }
}
