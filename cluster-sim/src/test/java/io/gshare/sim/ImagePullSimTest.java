package io.gshare.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Image pulls in the simulator: a started pod's images show in its node's {@code status.images}, and a
 * pull told to fail (through {@code /sim/v1}) keeps the pod Pending in ErrImagePull with the runtime's words.
 */
class ImagePullSimTest {

  private static SimulatedCluster cluster;
  private static KubernetesClient client;
  private static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    cluster = SimulatedCluster.start(new SimSeed("v1.36.0", List.of(
        new SimSeed.NodeSpec("pull-0", "exclusive", new SimSeed.GpuSpec("NVIDIA RTX A6000", 1, 49140, null), Map.of()),
        new SimSeed.NodeSpec("pull-1", "exclusive", new SimSeed.GpuSpec("NVIDIA RTX A6000", 1, 49140, null), Map.of())),
        null), SimulatedCluster.Options.defaults().withPort(0));
    client = cluster.newClient();
  }

  @AfterAll
  static void stop() {
    client.close();
    cluster.close();
  }

  private static Pod pod(String name, String node, String image) {
    return client.pods().resource(new PodBuilder().withNewMetadata().withNamespace("default").withName(name).endMetadata()
        .withNewSpec().withNodeName(node).withRestartPolicy("Never").addNewContainer().withName("pull").withImage(image)
        .withImagePullPolicy("IfNotPresent").withCommand("true").endContainer().endSpec().build()).create();
  }

  private static String phase(String pod) {
    Pod now = client.pods().inNamespace("default").withName(pod).get();
    return now == null || now.getStatus() == null ? null : now.getStatus().getPhase();
  }

  private static List<String> imagesOn(String node) {
    List<ContainerImage> images = client.nodes().withName(node).get().getStatus().getImages();
    return images == null ? List.of() : images.stream().flatMap(i -> i.getNames().stream()).toList();
  }

  private static HttpResponse<String> control(String method, String path, String body) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(cluster.url() + path)).header("Content-Type", "application/json")
        .method(method, HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aStartedPodsImageIsListedInItsNodesStatusImages() {
    String image = "registry.example.com/gshare/jupyter:pulled";
    assertThat(imagesOn("pull-0")).doesNotContain(image);
    pod("pulls-it", "pull-0", image);
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
        assertThat(phase("pulls-it")).isEqualTo("Succeeded"));
    assertThat(imagesOn("pull-0")).containsOnlyOnce(image);
    assertThat(client.nodes().withName("pull-0").get().getStatus().getImages()).filteredOn(i -> i.getNames().contains(image))
        .allSatisfy(i -> assertThat(i.getSizeBytes()).isPositive());
    assertThat(imagesOn("pull-1")).doesNotContain(image);
  }

  @Test
  void aFailingPullKeepsThePodPendingInErrImagePullWithTheMessageOnThatNodeOnly() throws Exception {
    String image = "registry.example.com/gshare/pytorch:full";
    HttpResponse<String> set = control("PUT", "/sim/v1/nodes/pull-1/image-pull-failures",
        "{\"image\":\"" + image + "\",\"reason\":\"no space left on device\"}");
    assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
    pod("fails-there", "pull-1", image);
    pod("works-here", "pull-0", image);
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
      assertThat(phase("fails-there")).isEqualTo("Pending");
      Pod failing = client.pods().inNamespace("default").withName("fails-there").get();
      assertThat(failing.getStatus().getContainerStatuses()).isNotEmpty();
      var waiting = failing.getStatus().getContainerStatuses().get(0).getState().getWaiting();
      assertThat(waiting.getReason()).isEqualTo("ErrImagePull");
      assertThat(waiting.getMessage()).contains(image).contains("no space left on device");
      assertThat(phase("works-here"))
          .isEqualTo("Succeeded");
    });
    assertThat(imagesOn("pull-1")).doesNotContain(image);

    assertThat(control("DELETE", "/sim/v1/nodes/pull-1/image-pull-failures", "{\"image\":\"" + image + "\"}").statusCode())
        .isEqualTo(200);
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
        assertThat(phase("fails-there"))
            .isEqualTo("Succeeded"));
    assertThat(imagesOn("pull-1")).contains(image);
    assertThat(control("PUT", "/sim/v1/nodes/pull-1/image-pull-failures", "{}").statusCode()).isEqualTo(400);
  }
}
