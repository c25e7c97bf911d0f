package io.gshare.api.catalogue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.HistoryRecorder;
import io.gshare.api.support.NewTestIds;
import io.gshare.client.ApiResponse;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.KubeCluster;
import io.temporal.client.WorkflowClient;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Image pre-pull end to end: real PostgreSQL, the embedded Temporal server, a simulated cluster attached
 * by the attach workflow and its real cluster-worker process, which runs the pull pods on the simulator.
 */
class ImagePrepullIT extends ApiIntegrationTest {

  static final String MODEL = "NVIDIA RTX A6000";
  static final List<String> GPU_NODES = List.of("a6000-0", "a6000-1", "a6000-2");

  private static KubeCluster sim;
  private static String clusterId;

  @Autowired ObjectMapper json;
  @Autowired WorkflowClient workflows;
  private String admin;

  @BeforeEach
  void oneAttachedCluster() throws Exception {
    admin = adminToken();
    if (sim != null) {
      return;
    }
    SimSeed.GpuSpec gpu = new SimSeed.GpuSpec(MODEL, 1, 49140, null);
    sim = startCluster(new SimSeed("v1.37.2", List.of(
        new SimSeed.NodeSpec("a6000-0", "exclusive", gpu, Map.of()),
        new SimSeed.NodeSpec("a6000-1", "exclusive", gpu, Map.of()),
        new SimSeed.NodeSpec("a6000-2", "fractional", new SimSeed.GpuSpec(MODEL, 1, 49140, 4), Map.of()),
        new SimSeed.NodeSpec("cpu-0", "cpu", null, Map.of())), null), "prepull");
    String kubeconfig = Files.readString(sim.writeKubeconfig(Files.createTempFile("prepull", ".kubeconfig")));
    JsonNode accepted = json.readTree(post("/api/v1/clusters", json.writeValueAsString(Map.of(
        "name", NewTestIds.next("prepull").replace('_', '-'), "kubeconfig", kubeconfig, "session_domain",
        "gshare." + NewTestIds.next("lab").replace('_', '-') + ".example.com")), admin).text());
    clusterId = accepted.at("/cluster/id").asText();
    String operation = accepted.at("/operation/id").asText();
    await().atMost(Duration.ofSeconds(180)).until(() ->
        "completed".equals(json.readTree(get("/api/v1/operations/" + operation, admin).text()).path("status").asText()));
    await().atMost(Duration.ofSeconds(60)).until(() -> jdbc.sql(
        "select count(*) from nodes where cluster_id = :c and liveness = 'ready' and removed_at is null")
        .param("c", clusterId).query(Integer.class).single() == 4);
  }

  private String image(String reference) throws Exception {
    ApiResponse created = post("/api/v1/images", "{\"name\":\"" + NewTestIds.next("img")
        + "\",\"reference\":\"" + reference + "\"}", admin);
    assertThat(created.status()).as(created.text()).isEqualTo(201);
    return json.readTree(created.text()).get("id").asText();
  }

  private JsonNode prepull(String imageId, String body) throws Exception {
    ApiResponse started = post("/api/v1/images/" + imageId + "/prepull", body, admin);
    assertThat(started.status()).as(started.text()).isEqualTo(202);
    return json.readTree(started.text());
  }

  private String ours() {
    return "{\"cluster_ids\":[\"" + clusterId + "\"]}";
  }

  private JsonNode awaitOperation(String operationId) {
    JsonNode[] last = new JsonNode[1];
    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
      last[0] = json.readTree(get("/api/v1/operations/" + operationId, admin).text());
      assertThat(last[0].path("status").asText()).as(last[0].toString()).isIn("completed", "failed");
    });
    return last[0];
  }

  private String stepDetail(JsonNode operation) {
    for (JsonNode step : operation.path("steps")) {
      if (step.path("name").asText().equals("pull on " + clusterId)) {
        return step.path("detail").asText();
      }
    }
    throw new AssertionError("no step for " + clusterId + " in " + operation);
  }

  private List<String> imagesOn(KubernetesClient k8s, String node) {
    var images = k8s.nodes().withName(node).get().getStatus().getImages();
    return images == null ? List.of() : images.stream().flatMap(i -> i.getNames().stream()).toList();
  }

  @Test
  void aPrepullReachesEveryGpuNodeAndASecondRunSkipsThemAll() throws Exception {
    String reference = "registry.example.com/gshare/" + NewTestIds.next("jupyter").replace('_', '-') + ":2026.11";
    String imageId = image(reference);

    JsonNode started = prepull(imageId, ours());
    assertThat(started.at("/operation/id").asText()).isEqualTo("image-prepull-" + imageId);
    assertThat(started.at("/nodes/" + clusterId).toString()).contains("a6000-0", "a6000-1", "a6000-2")
        .doesNotContain("cpu-0");
    JsonNode first = awaitOperation("image-prepull-" + imageId);

    assertThat(first.path("status").asText()).as(first.toString()).isEqualTo("completed");
    HistoryRecorder.record(workflows, "image-prepull-" + imageId, "image-prepull");
    assertThat(stepDetail(first)).startsWith("3 pulled").contains("a6000-0: pulled", "a6000-1: pulled", "a6000-2: pulled");
    try (KubernetesClient k8s = sim.newClient()) {
      for (String node : GPU_NODES) {
        assertThat(imagesOn(k8s, node)).as(node).contains(reference);
      }
      assertThat(imagesOn(k8s, "cpu-0")).doesNotContain(reference);
      assertThat(k8s.pods().inNamespace("gshare-sessions").withLabel("gshare.io/prepull-image").list().getItems())
          .as("no pull pod is left behind").isEmpty();
    }

    // Its own cluster again: the ITs share one control plane, and other tests' clusters (some with no worker
    // any more) are connected too, so a run over every cluster would wait on theirs.
    JsonNode second = awaitOperation(prepull(imageId, ours()).at("/operation/id").asText());
    assertThat(second.path("status").asText()).as(second.toString()).isEqualTo("completed");
    assertThat(stepDetail(second)).startsWith("3 already present");
  }

  @Test
  void aNodeWhosePullFailsIsReportedWithTheReasonWhileTheOthersPull() throws Exception {
    String reference = "registry.example.com/gshare/" + NewTestIds.next("pytorch").replace('_', '-') + ":full";
    String imageId = image(reference);
    sim.failImagePulls("a6000-1", reference, "no space left on device");

    JsonNode ended = awaitOperation(prepull(imageId, ours()).at("/operation/id").asText());

    assertThat(ended.path("status").asText()).as(ended.toString()).isEqualTo("failed");
    assertThat(stepDetail(ended)).startsWith("2 pulled, 1 failed").contains("a6000-0: pulled", "a6000-2: pulled")
        .contains("a6000-1: failed: ErrImagePull").contains("no space left on device");
    assertThat(ended.path("error").asText()).contains("not pulled on 1 of 3 node(s)");
    try (KubernetesClient k8s = sim.newClient()) {
      assertThat(imagesOn(k8s, "a6000-0")).contains(reference);
      assertThat(imagesOn(k8s, "a6000-1")).doesNotContain(reference);
    }
  }

  @Test
  void namedNodesArePulledAloneAndBadInputIsRefusedWithNothingStarted() throws Exception {
    String reference = "registry.example.com/gshare/" + NewTestIds.next("vscode").replace('_', '-') + ":1";
    String imageId = image(reference);
    String operation = "/api/v1/operations/image-prepull-" + imageId;
    String cpuNode = jdbc.sql("select id from nodes where cluster_id = :c and hostname = 'cpu-0'").param("c", clusterId)
        .query(String.class).single();

    assertThat(post("/api/v1/images/img_nosuch/prepull", "{}", admin).status()).isEqualTo(404);
    for (String body : List.of("{\"cluster_ids\":[\"clu_nosuch\"]}", "{\"node_ids\":[\"nod_nosuch\"]}",
        "{\"cluster_ids\":[\"Not An Id\"]}", "{\"cluster_ids\":[]}",
        "{\"cluster_ids\":[\"" + clusterId + "\"],\"node_ids\":[\"nod_nosuch\"]}")) {
      ApiResponse refused = post("/api/v1/images/" + imageId + "/prepull", body, admin);
      assertThat(refused.status()).as(body + " → " + refused.text()).isEqualTo(422);
    }
    assertThat(post("/api/v1/images/" + imageId + "/prepull", "{}", tokenFor(newUser("user"))).status())
        .isEqualTo(403);
    assertThat(get(operation, admin).status()).as("nothing started").isEqualTo(404);

    JsonNode started = prepull(imageId, "{\"node_ids\":[\"" + cpuNode + "\"]}");
    assertThat(started.at("/nodes/" + clusterId).toString()).isEqualTo("[\"cpu-0\"]");
    JsonNode ended = awaitOperation(started.at("/operation/id").asText());
    assertThat(ended.path("status").asText()).as(ended.toString()).isEqualTo("completed");
    assertThat(stepDetail(ended)).isEqualTo("1 pulled — cpu-0: pulled");
  }
}
