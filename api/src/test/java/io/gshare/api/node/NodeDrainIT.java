package io.gshare.api.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.HistoryRecorder;
import io.gshare.api.support.NewTestIds;
import io.gshare.client.ApiResponse;
import io.gshare.core.credit.CreditLedger;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.KubeCluster;
import io.temporal.client.WorkflowClient;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Node drains end to end on the dev runtime's parts: real PostgreSQL, the embedded Temporal server, a
 * real Kubernetes with KWOK GPU nodes (KubeCluster) attached by the attach workflow and its real cluster-worker process, which cordons
 * and evicts through the simulated apiserver.
 */
class NodeDrainIT extends ApiIntegrationTest {

  static final String SLICE_MODEL = "NVIDIA A30";
  static final String LOSSLESS_MODEL = "NVIDIA H200 NVL";
  static final String LONE_MODEL = "NVIDIA L4";
  static final String REGISTRY = "10.10.0.191:5000/gshare-checkpoints";

  private static KubeCluster sim;
  private static String clusterId;
  private static String sliceOffering;
  private static String losslessOffering;
  private static String loneOffering;
  private static String image;

  @Autowired ObjectMapper json;
  @Autowired CreditLedger ledger;
  @Autowired WorkflowClient workflows;
  private String admin;

  @BeforeEach
  void oneAttachedCluster() throws Exception {
    admin = adminToken();
    if (sim != null) {
      return;
    }
    Map<String, String> criu = Map.of("gshare.io/criu", "ready", "gshare.io/cuda-checkpoint", "ready");
    SimSeed seed = new SimSeed("v1.37.2", List.of(
        new SimSeed.NodeSpec("a100-0", "fractional", new SimSeed.GpuSpec(SLICE_MODEL, 1, 40960, 10), Map.of()),
        new SimSeed.NodeSpec("a100-1", "fractional", new SimSeed.GpuSpec(SLICE_MODEL, 1, 40960, 10), Map.of()),
        new SimSeed.NodeSpec("h200-0", "exclusive", new SimSeed.GpuSpec(LOSSLESS_MODEL, 1, 143771, null), criu),
        new SimSeed.NodeSpec("h200-1", "exclusive", new SimSeed.GpuSpec(LOSSLESS_MODEL, 1, 143771, null), criu),
        new SimSeed.NodeSpec("l40s-0", "exclusive", new SimSeed.GpuSpec(LONE_MODEL, 1, 46068, null), Map.of()),
        new SimSeed.NodeSpec("t4-0", "exclusive", new SimSeed.GpuSpec("NVIDIA A2", 1, 15360, null), Map.of())), null);
    sim = startCluster(seed, "drain");
    String domain = "gshare." + NewTestIds.next("lab").replace('_', '-') + ".example.com";
    String kubeconfig = Files.readString(sim.writeKubeconfig(Files.createTempFile("drain", ".kubeconfig")));
    JsonNode accepted = json.readTree(post("/api/v1/clusters", json.writeValueAsString(Map.of(
        "name", NewTestIds.next("drain").replace('_', '-'), "kubeconfig", kubeconfig, "session_domain", domain,
        "checkpoint_registry", REGISTRY)), admin).text());
    clusterId = accepted.at("/cluster/id").asText();
    String operation = accepted.at("/operation/id").asText();
    await().atMost(Duration.ofSeconds(180)).until(() ->
        "completed".equals(json.readTree(get("/api/v1/operations/" + operation, admin).text()).path("status").asText()));
    sliceOffering = offering(SLICE_MODEL, "fractional", ",\"gpumem_mib\":10240,\"gpucores_percent\":25");
    losslessOffering = offering(LOSSLESS_MODEL, "exclusive", ",\"gpu_count\":1");
    loneOffering = offering(LONE_MODEL, "exclusive", ",\"gpu_count\":1");
    image = json.readTree(post("/api/v1/images", "{\"name\":\"" + NewTestIds.next("jupyter")
        + "\",\"reference\":\"registry.example.com/gshare/jupyter:2026.11\"}", admin).text()).get("id").asText();
  }

  private String offering(String model, String mode, String rest) throws Exception {
    ApiResponse created = post("/api/v1/offerings", "{\"name\":\"" + NewTestIds.next("off") + "\",\"gpu_model\":\""
        + model + "\",\"mode\":\"" + mode + "\",\"price_per_hour\":6" + rest + "}", admin);
    assertThat(created.status()).as(created.text()).isEqualTo(201);
    return json.readTree(created.text()).get("id").asText();
  }

  private String session(String offering) throws Exception {
    String user = newUser("user");
    ledger.grant(user, new BigDecimal("100"), NewTestIds.next("g"), "test", null);
    ApiResponse created = post("/api/v1/sessions",
        "{\"offering_id\":\"" + offering + "\",\"image_id\":\"" + image + "\"}", tokenFor(user));
    assertThat(created.status()).as(created.text()).isEqualTo(202);
    String id = json.readTree(created.text()).at("/session/id").asText();
    awaitState(id, "running");
    return id;
  }

  private JsonNode view(String id) throws Exception {
    return json.readTree(get("/api/v1/sessions/" + id, admin).text());
  }

  private void awaitState(String id, String state) {
    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
        assertThat(view(id).at("/session/state").asText()).as(view(id).toString()).isEqualTo(state));
  }

  private String nodeOf(String sessionId) {
    return jdbc.sql("select node_id from sessions where id = :s").param("s", sessionId).query(String.class).single();
  }

  private String nodeId(String hostname) {
    return jdbc.sql("select id from nodes where cluster_id = :c and hostname = :h").param("c", clusterId)
        .param("h", hostname).query(String.class).single();
  }

  private String hostnameOf(String nodeId) {
    return jdbc.sql("select hostname from nodes where id = :n").param("n", nodeId).query(String.class).single();
  }

  private JsonNode drain(String nodeId, String body) throws Exception {
    ApiResponse started = post("/api/v1/nodes/" + nodeId + "/drain", body, admin);
    assertThat(started.status()).as(started.text()).isEqualTo(202);
    return json.readTree(started.text());
  }

  private JsonNode awaitOperation(String operationId) {
    JsonNode[] last = new JsonNode[1];
    await().atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
      last[0] = json.readTree(get("/api/v1/operations/" + operationId, admin).text());
      assertThat(last[0].path("status").asText()).as(last[0].toString()).isIn("completed", "failed");
    });
    return last[0];
  }

  private int liveAllocationsOn(String nodeId) {
    return jdbc.sql("select count(*) from allocations where node_id = :n and released_at is null").param("n", nodeId)
        .query(Integer.class).single();
  }

  private int closedWindows(String sessionId) {
    return jdbc.sql("select count(*) from billing_windows where session_id = :s and closed_at is not null")
        .param("s", sessionId).query(Integer.class).single();
  }

  private static Pod plainPod(String namespace, String name, String hostname, Map<String, String> labels) {
    return new PodBuilder().withNewMetadata().withNamespace(namespace).withName(name).withLabels(labels).endMetadata()
        .withNewSpec().withNodeName(hostname).addNewContainer().withName("main").withImage("registry.example.com/app:1")
        .endContainer().endSpec().build();
  }

  private static void namespaces(KubernetesClient k8s, String... names) {
    for (String name : names) {
      k8s.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
          .endMetadata().build()).serverSideApply();
    }
  }

  @Test
  void aMigrateDrainMovesEverySessionOffTheNodeAndEvictsAllButDaemonSetPods() throws Exception {
    String first = session(sliceOffering);
    String second = session(sliceOffering);
    String drained = nodeOf(first);
    assertThat(nodeOf(second)).as("binpack puts both slices on one card").isEqualTo(drained);
    String host = hostnameOf(drained);
    String lossless = session(losslessOffering);
    String losslessNode = nodeOf(lossless);
    String daemonPod;
    try (KubernetesClient k8s = sim.newClient()) {
      namespaces(k8s, "team-a", "monitoring");
      k8s.pods().resource(plainPod("team-a", "batch-1", host, Map.of("app", "batch"))).create();
      // The real DaemonSet controller puts one pod on every node, the drained one included.
      k8s.apps().daemonSets().inNamespace("monitoring").resource(new DaemonSetBuilder()
          .withNewMetadata().withName("node-exporter").withNamespace("monitoring").endMetadata()
          .withNewSpec().withNewSelector().addToMatchLabels("app", "node-exporter").endSelector()
          .withNewTemplate().withNewMetadata().addToLabels("app", "node-exporter").endMetadata()
          .withNewSpec().addNewContainer().withName("exporter").withImage("registry.example.com/node-exporter:1")
          .endContainer().endSpec().endTemplate().endSpec().build()).create();
      daemonPod = await().atMost(Duration.ofSeconds(30)).until(() -> k8s.pods().inNamespace("monitoring")
          .withLabel("app", "node-exporter").withField("spec.nodeName", host).list().getItems().stream()
          .map(p -> p.getMetadata().getName()).findFirst().orElse(null), Objects::nonNull);
    }
    int checkpoints = sim.checkpointsTaken();

    JsonNode started = drain(drained, "{\"reason\":\"disk swap\"}");
    assertThat(started.at("/operation/id").asText()).isEqualTo("node-drain-" + drained);
    JsonNode slicesMoved = awaitOperation("node-drain-" + drained);
    JsonNode losslessMoved = awaitOperation(drain(losslessNode, "{\"mode\":\"migrate\"}").at("/operation/id").asText());

    assertThat(slicesMoved.path("status").asText()).as(slicesMoved.toString()).isEqualTo("completed");
    assertThat(losslessMoved.path("status").asText()).as(losslessMoved.toString()).isEqualTo("completed");
    // Every other pod on the node is evicted (the cluster's own, e.g. its ingress controller, too); DaemonSet pods stay.
    assertThat(slicesMoved.toString()).contains("cold").containsPattern("\\d+ pod\\(s\\) evicted \\([^)]*team-a/batch-1")
        .containsPattern("\\d+ DaemonSet pod\\(s\\) stay");
    assertThat(losslessMoved.toString()).contains("lossless");
    assertThat(sim.checkpointsTaken()).isEqualTo(checkpoints + 1);
    for (String session : List.of(first, second, lossless)) {
      JsonNode now = view(session);
      assertThat(now.at("/session/state").asText()).isEqualTo("running");
      assertThat(nodeOf(session)).isNotIn(drained, losslessNode);
      // Billing settled once, at the pause; the run elsewhere has its own open window.
      assertThat(closedWindows(session)).isEqualTo(1);
      assertThat(jdbc.sql("select count(*) from billing_windows where session_id = :s and closed_at is null")
          .param("s", session).query(Integer.class).single()).isEqualTo(1);
    }
    assertThat(liveAllocationsOn(drained)).isZero();
    assertThat(liveAllocationsOn(losslessNode)).isZero();
    try (KubernetesClient k8s = sim.newClient()) {
      assertThat(k8s.nodes().withName(host).get().getSpec().getUnschedulable()).isTrue();
      assertThat(k8s.pods().inNamespace("team-a").withName("batch-1").get()).as("evicted").isNull();
      assertThat(k8s.pods().inNamespace("monitoring").withName(daemonPod).get()).as("DaemonSet pods stay").isNotNull();
    }
    HistoryRecorder.record(workflows, "node-drain-" + drained, "node-drain-migrate");
    HistoryRecorder.record(workflows, "session-" + lossless, "session-drain-migrate-lossless");
    JsonNode nodes = json.readTree(get("/api/v1/nodes?cluster_id=" + clusterId, admin).text());
    assertThat(nodes.toString()).contains("\"drain_state\":\"drained\"");
    // A new session never lands on the drained node.
    assertThat(nodeOf(session(sliceOffering))).isNotEqualTo(drained);

    ApiResponse uncordoned = post("/api/v1/nodes/" + drained + "/uncordon", null, admin);
    assertThat(uncordoned.status()).as(uncordoned.text()).isEqualTo(202);
    assertThat(awaitOperation("node-uncordon-" + drained).path("status").asText()).isEqualTo("completed");
    HistoryRecorder.record(workflows, "node-uncordon-" + drained, "node-uncordon");
    try (KubernetesClient k8s = sim.newClient()) {
      assertThat(k8s.nodes().withName(host).get().getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
    }
    assertThat(jdbc.sql("select drain_state from nodes where id = :n").param("n", drained).query(String.class)
        .optional()).isEmpty();
  }

  @Test
  void withNoCapacityElsewhereASessionStaysPausedAndSaysWhy() throws Exception {
    String lone = session(loneOffering);
    String node = nodeOf(lone);

    JsonNode done = awaitOperation(drain(node, "{\"reason\":\"fan failure\"}").at("/operation/id").asText());

    assertThat(done.path("status").asText()).as(done.toString()).isEqualTo("completed");
    JsonNode paused = view(lone);
    assertThat(paused.at("/session/state").asText()).isEqualTo("paused");
    assertThat(paused.toString()).contains("is being drained (fan failure) and it could not move to another node");
    assertThat(liveAllocationsOn(node)).isZero();
    assertThat(closedWindows(lone)).isEqualTo(1);
    assertThat(post("/api/v1/nodes/" + node + "/uncordon", null, admin).status()).isEqualTo(202);
    awaitOperation("node-uncordon-" + node);
  }

  @Test
  void aPodDisruptionBudgetThatKeepsRefusingFailsTheDrainAtItsDeadlineAndTheNodeStaysCordoned() throws Exception {
    String node = nodeId("t4-0");
    try (KubernetesClient k8s = sim.newClient()) {
      namespaces(k8s, "team-b");
      k8s.pods().resource(plainPod("team-b", "db-0", "t4-0", Map.of("app", "db"))).create();
      k8s.policy().v1().podDisruptionBudget().inNamespace("team-b").resource(new PodDisruptionBudgetBuilder()
          .withNewMetadata().withName("db").withNamespace("team-b").endMetadata()
          .withNewSpec().withMinAvailable(new IntOrString(1)).withNewSelector().addToMatchLabels("app", "db").endSelector()
          .endSpec().build()).create();
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> {
      try (KubernetesClient k8s = sim.newClient()) {
        Pod pod = k8s.pods().inNamespace("team-b").withName("db-0").get();
        return pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
      }
    });

    String operation = drain(node, "{\"deadline_seconds\":30}").at("/operation/id").asText();
    ApiResponse again = post("/api/v1/nodes/" + node + "/drain", null, admin);
    assertThat(again.status()).as(again.text()).isEqualTo(409);
    assertThat(again.text()).contains("operation_in_progress").contains(operation);
    JsonNode failed = awaitOperation(operation);

    assertThat(failed.path("status").asText()).isEqualTo("failed");
    assertThat(failed.path("error").asText()).contains("team-b/db-0").contains("PodDisruptionBudget")
        .contains("stays cordoned");
    try (KubernetesClient k8s = sim.newClient()) {
      assertThat(k8s.pods().inNamespace("team-b").withName("db-0").get()).isNotNull();
      assertThat(k8s.nodes().withName("t4-0").get().getSpec().getUnschedulable()).isTrue();
    }
    assertThat(post("/api/v1/nodes/" + node + "/uncordon", null, admin).status()).isEqualTo(202);
    awaitOperation("node-uncordon-" + node);
  }

  @Test
  void aPodEvictedBehindGsharesBackPausesItsSessionColdAndStopsItsBilling() throws Exception {
    String id = session(sliceOffering);
    try (KubernetesClient k8s = sim.newClient()) {
      Pod pod = k8s.pods().inNamespace("gshare-sessions").withLabel("gshare.io/session-id", id).list().getItems().get(0);
      // What `kubectl drain` does to each pod on the node.
      assertThat(k8s.pods().inNamespace("gshare-sessions").withName(pod.getMetadata().getName()).evict()).isTrue();
    }

    awaitState(id, "paused");
    JsonNode paused = view(id);
    assertThat(paused.at("/session/pause_kind").asText()).isEqualTo("cold");
    assertThat(closedWindows(id)).isEqualTo(1);
    assertThat(jdbc.sql("select count(*) from allocations where session_id = :s and released_at is null").param("s", id)
        .query(Integer.class).single()).isZero();
  }

  @Test
  void badDrainsAreRefusedAndChangeNothing() throws Exception {
    String node = nodeId("a100-1");
    ApiResponse badMode = post("/api/v1/nodes/" + node + "/drain", "{\"mode\":\"evaporate\"}", admin);
    assertThat(badMode.status()).isEqualTo(422);
    assertThat(badMode.text()).contains("migrate, pause, terminate");
    assertThat(post("/api/v1/nodes/" + node + "/drain", "{\"deadline_seconds\":1}", admin).status()).isEqualTo(422);
    assertThat(post("/api/v1/nodes/nod_missing/drain", null, admin).status()).isEqualTo(404);
    assertThat(post("/api/v1/nodes/" + node + "/drain", null, tokenFor(newUser("user"))).status()).isEqualTo(403);
    assertThat(jdbc.sql("select drain_state from nodes where id = :n").param("n", node).query(String.class).optional())
        .isEmpty();
  }

  @Test
  void aCordonedGpuIsWrittenToHamisDeviceCordonAnnotation() throws Exception {
    String gpu = jdbc.sql("select uuid from gpu_devices where node_id = :n").param("n", nodeId("t4-0"))
        .query(String.class).single();
    assertThat(post("/api/v1/gpus/" + gpu + "/cordon", null, admin).status()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      try (KubernetesClient k8s = sim.newClient()) {
        assertThat(k8s.nodes().withName("t4-0").get().getMetadata().getAnnotations())
            .containsEntry("hami.io/device-cordon", gpu);
      }
    });
    assertThat(post("/api/v1/gpus/" + gpu + "/uncordon", null, admin).status()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      try (KubernetesClient k8s = sim.newClient()) {
        assertThat(k8s.nodes().withName("t4-0").get().getMetadata().getAnnotations())
            .doesNotContainKey("hami.io/device-cordon");
      }
    });
    HistoryRecorder.record(workflows, "node-devices-" + nodeId("t4-0"), "node-devices");
  }
}
