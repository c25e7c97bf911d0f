package io.gshare.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.model.PrepullObjects;
import io.gshare.sim.SimSeed;
import io.gshare.sim.SimulatedCluster;
import io.gshare.workflows.image.ImagePullClusterActivities;
import io.gshare.workflows.image.ImagePullRequest;
import io.gshare.workflows.image.ImagePullResult;
import io.gshare.workflows.image.NodePull;
import io.temporal.activity.ActivityOptions;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Image pre-pull against the simulated apiserver and kubelets, inside a Temporal activity context. */
class ImagePullClusterActivitiesImplTest {

  private static final String REF = "registry.example.com/gshare/jupyter:2026.11";

  private SimulatedCluster sim;
  private KubernetesClient client;
  private TestActivityEnvironment env;
  private ImagePullClusterActivities activities;

  @BeforeEach
  void cluster() {
    SimSeed.GpuSpec gpu = new SimSeed.GpuSpec("NVIDIA RTX A6000", 1, 49140, null);
    sim = SimulatedCluster.start(new SimSeed("v1.36.0", List.of(new SimSeed.NodeSpec("gpu-0", "exclusive", gpu, Map.of()),
        new SimSeed.NodeSpec("gpu-1", "exclusive", gpu, Map.of()), new SimSeed.NodeSpec("gpu-2", "exclusive", gpu, Map.of())),
        null), SimulatedCluster.Options.defaults());
    client = sim.newClient();
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(new ImagePullClusterActivitiesImpl(client, Duration.ofMillis(200),
        Duration.ofSeconds(30)));
    activities = env.newActivityStub(ImagePullClusterActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofMinutes(1)).setHeartbeatTimeout(Duration.ofSeconds(10)).build());
  }

  @AfterEach
  void close() {
    env.close();
    client.close();
    sim.close();
  }

  private List<Pod> pullPods() {
    return client.pods().inNamespace(PrepullObjects.NAMESPACE).withLabel(PrepullObjects.IMAGE_LABEL).list().getItems();
  }

  private List<String> imagesOn(String node) {
    var images = client.nodes().withName(node).get().getStatus().getImages();
    return images == null ? List.of() : images.stream().flatMap(i -> i.getNames().stream()).toList();
  }

  @Test
  void eachNodePullsThroughItsOwnPodAndASecondPullSkipsThemAll() {
    ImagePullResult first = activities.pull(new ImagePullRequest("img_1", REF, List.of("gpu-0", "gpu-1")));

    assertThat(first.nodes()).containsExactly(NodePull.pulled("gpu-0"), NodePull.pulled("gpu-1"));
    assertThat(imagesOn("gpu-0")).contains(REF);
    assertThat(imagesOn("gpu-1")).contains(REF);
    assertThat(imagesOn("gpu-2")).doesNotContain(REF);
    assertThat(pullPods()).as("the pull pods are deleted once they answered").isEmpty();

    ImagePullResult second = activities.pull(new ImagePullRequest("img_1", REF, List.of("gpu-0", "gpu-1", "gpu-2")));

    assertThat(second.nodes()).containsExactly(NodePull.alreadyPresent("gpu-0"), NodePull.alreadyPresent("gpu-1"),
        NodePull.pulled("gpu-2"));
  }

  @Test
  void aNodeWhosePullFailsIsReportedWithTheKubeletsReasonAndTheOthersStillPull() {
    sim.failImagePulls("gpu-1", REF, "write /var/lib/containerd/tmpmounts: no space left on device");

    ImagePullResult result = activities.pull(new ImagePullRequest("img_1", REF, List.of("gpu-0", "gpu-1", "gpu-2")));

    assertThat(result.nodes()).extracting(NodePull::hostname, NodePull::outcome).containsExactly(
        org.assertj.core.groups.Tuple.tuple("gpu-0", NodePull.PULLED),
        org.assertj.core.groups.Tuple.tuple("gpu-1", NodePull.FAILED),
        org.assertj.core.groups.Tuple.tuple("gpu-2", NodePull.PULLED));
    assertThat(result.nodes().get(1).detail()).startsWith("ErrImagePull: ").contains(REF)
        .contains("no space left on device");
    assertThat(imagesOn("gpu-1")).doesNotContain(REF);
    assertThat(pullPods()).isEmpty();
  }

  @Test
  void anUnknownNodeIsReportedFailedWithoutStoppingTheRest() {
    ImagePullResult result = activities.pull(new ImagePullRequest("img_1", REF, List.of("gone-7", "gpu-2")));

    assertThat(result.nodes().get(0).outcome()).isEqualTo(NodePull.FAILED);
    assertThat(result.nodes().get(0).detail()).contains("no node gone-7");
    assertThat(result.nodes().get(1)).isEqualTo(NodePull.pulled("gpu-2"));
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
