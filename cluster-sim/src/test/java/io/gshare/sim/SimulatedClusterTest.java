package io.gshare.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SimulatedClusterTest {

  private static SimulatedCluster cluster;
  private static KubernetesClient client;
  private static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    cluster = SimulatedCluster.start(
        SimulatedCluster.defaultSeed(),
        new SimulatedCluster.Options("sim", "127.0.0.1", 0, Duration.ofMillis(50), Duration.ofMillis(100)));
    client = cluster.newClient();
  }

  @AfterAll
  static void stop() {
    client.close();
    cluster.close();
  }

  @Test
  void seedsGpuNodesTheWayHamiPublishesThem() {
    Node h100 = client.nodes().withName("sim-h100-0").get();
    assertThat(h100.getMetadata().getLabels())
        .containsEntry("gpu", "on")
        .containsEntry("gshare.io/gpu-mode", "exclusive")
        .containsEntry("gshare.io/simulated", "true")
        .containsEntry("gshare.io/criu", "ready");
    String register = h100.getMetadata().getAnnotations().get("hami.io/node-nvidia-register");
    assertThat(register).startsWith("[{\"id\":\"GPU-").contains("\"type\":\"NVIDIA-NVIDIA H100 80GB HBM3\"");
    assertThat(register.split("\"id\"")).hasSize(9);
    assertThat(h100.getStatus().getCapacity().get("nvidia.com/gpu").getAmount()).isEqualTo("8");

    Node a100 = client.nodes().withName("sim-a100-0").get();
    assertThat(a100.getStatus().getCapacity().get("nvidia.com/gpu").getAmount()).isEqualTo("40");
    assertThat(a100.getStatus().getCapacity().get("nvidia.com/gpumem").getAmount()).isEqualTo("163840");
    assertThat(client.nodes().withName("sim-cpu-0").get().getMetadata().getLabels()).doesNotContainKey("gpu");
  }

  @Test
  void seedsTheRuntimeAddonsGshareChecks() {
    assertThat(client.resources(io.fabric8.kubernetes.api.model.node.v1.RuntimeClass.class).withName("nvidia").get().getHandler()).isEqualTo("nvidia");
    assertThat(client.apps().daemonSets().inNamespace("kube-system")
        .withLabel("app.kubernetes.io/component", "hami-device-plugin").list().getItems()).hasSize(1);
    assertThat(client.apps().deployments().inNamespace("ingress-nginx")
        .withName("ingress-nginx-controller").get()).isNotNull();
  }

  @Test
  void runsPodsBoundToANodeAndBindsPodsThatSelectTheirHost() {
    client.pods().inNamespace("default").resource(pod("pinned", Map.of(), "sim-a100-0")).create();
    client.pods().inNamespace("default").resource(pod("selected", Map.of("kubernetes.io/hostname", "sim-h100-0"), null)).create();

    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      assertThat(phase("pinned")).isEqualTo("Running");
      assertThat(client.pods().inNamespace("default").withName("pinned").get().getStatus().getPodIP()).startsWith("10.244.");
      assertThat(phase("selected")).isEqualTo("Running");
      assertThat(client.pods().inNamespace("default").withName("selected").get().getSpec().getNodeName()).isEqualTo("sim-h100-0");
    });
  }

  @Test
  void leavesPodsWithoutANamedNodePendingAndUnschedulable() {
    client.pods().inNamespace("default").resource(pod("nowhere", Map.of("kubernetes.io/hostname", "no-such-node"), null)).create();

    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      assertThat(phase("nowhere")).isEqualTo("Pending");
      assertThat(client.pods().inNamespace("default").withName("nowhere").get().getStatus().getConditions()).anyMatch(c -> "Unschedulable".equals(c.getReason()));
    });
  }

  @Test
  void failsAPodOnRequestAndHonoursDeletion() throws Exception {
    client.pods().inNamespace("default").resource(pod("doomed", Map.of(), "sim-a100-0")).create();
    await().atMost(Duration.ofSeconds(10)).until(
        () -> "Running".equals(phase("doomed")));

    HttpResponse<String> answer = post("/sim/v1/namespaces/default/pods/doomed/fail", "");
    assertThat(answer.statusCode()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(
        () -> "Failed".equals(phase("doomed")));

    client.pods().inNamespace("default").withName("doomed").delete();
    assertThat(client.pods().inNamespace("default").withName("doomed").get()).isNull();
  }

  @Test
  void addsDropsAndRestoresNodesThroughTheControlApi() throws Exception {
    String spec = "{\"name\":\"sim-l40-0\",\"gpuMode\":\"fractional\","
        + "\"gpus\":{\"model\":\"NVIDIA L40S\",\"count\":2,\"memoryMib\":46068}}";
    assertThat(post("/sim/v1/nodes", spec).statusCode()).isEqualTo(201);
    assertThat(post("/sim/v1/nodes", spec).statusCode()).isEqualTo(409);
    assertThat(client.nodes().withName("sim-l40-0").get().getMetadata().getAnnotations().get("hami.io/node-nvidia-register"))
        .contains("NVIDIA-NVIDIA L40S");

    client.pods().inNamespace("default").resource(pod("on-l40", Map.of(), "sim-l40-0")).create();
    await().atMost(Duration.ofSeconds(10)).until(
        () -> "Running".equals(phase("on-l40")));

    assertThat(post("/sim/v1/nodes/sim-l40-0/drop", "").statusCode()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      assertThat(readyStatus("sim-l40-0")).isEqualTo("Unknown");
      assertThat(client.pods().inNamespace("default").withName("on-l40").get().getStatus().getConditions())
          .anyMatch(c -> "Ready".equals(c.getType()) && "False".equals(c.getStatus()));
    });

    assertThat(post("/sim/v1/nodes/sim-l40-0/restore", "").statusCode()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> "True".equals(readyStatus("sim-l40-0")));

    client.nodes().withName("sim-l40-0").delete();
    await().atMost(Duration.ofSeconds(10)).until(() -> client.pods().inNamespace("default").withName("on-l40").get() == null);
  }

  @Test
  void servesDiscoveryAndVersionForKubectl() throws Exception {
    HttpResponse<String> core = get("/api/v1");
    assertThat(core.statusCode()).isEqualTo(200);
    assertThat(core.body()).contains("\"name\":\"nodes\"").contains("\"kind\":\"APIResourceList\"");
    assertThat(get("/apis").body()).contains("node.k8s.io/v1").contains("apps/v1");
    assertThat(get("/apis/node.k8s.io/v1").body()).contains("runtimeclasses");
    assertThat(get("/apis/no.such.group/v1").statusCode()).isEqualTo(404);
    assertThat(get("/version").body()).contains("v1.36.0+gshare-sim");
    assertThat(client.getKubernetesVersion().getGitVersion()).isEqualTo("v1.36.0+gshare-sim");
    assertThat(get("/sim/v1/info").body()).contains("\"simulator\":true");
  }

  @Test
  void printsNodeTablesTheWayKubectlAsksForThem() throws Exception {
    HttpResponse<String> table = http.send(HttpRequest.newBuilder(URI.create(cluster.url() + "/api/v1/nodes?limit=500"))
        .header("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json").GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(table.body()).contains("\"kind\":\"Table\"").contains("\"Ready\"").contains("\"sim-a100-0\"")
        .contains("\"fractional\"");
    assertThat(get("/api/v1/nodes").body()).contains("\"kind\":\"NodeList\"");
    assertThat(get("/apis/apps/v1/namespaces/kube-system/daemonsets").body())
        .startsWith("{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSetList\"");
  }

  @Test
  void serverSideApplyCreatesThenUpdatesInPlace() {
    var secret = new io.fabric8.kubernetes.api.model.SecretBuilder()
        .withNewMetadata().withName("gshare-operator-internal-jwt").withNamespace("default")
        .addToLabels("app.kubernetes.io/managed-by", "gshare").endMetadata()
        .addToStringData("internal-jwt", "first").build();
    client.secrets().inNamespace("default").resource(secret).fieldManager("gshare").forceConflicts().serverSideApply();
    String uid = client.secrets().inNamespace("default").withName("gshare-operator-internal-jwt").get().getMetadata().getUid();

    secret.setStringData(Map.of("internal-jwt", "second"));
    secret.getMetadata().setLabels(Map.of("gshare.io/rotated", "yes"));
    client.secrets().inNamespace("default").resource(secret).fieldManager("gshare").forceConflicts().serverSideApply();

    var stored = client.secrets().inNamespace("default").withName("gshare-operator-internal-jwt").get();
    assertThat(stored.getMetadata().getUid()).isEqualTo(uid);
    assertThat(stored.getStringData()).containsEntry("internal-jwt", "second");
    assertThat(stored.getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/managed-by", "gshare").containsEntry("gshare.io/rotated", "yes");
  }

  @Test
  void writesAKubeconfigThatPointsAtTheStandIn(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    var file = cluster.writeKubeconfig(dir.resolve("sim.kubeconfig"));
    var config = io.fabric8.kubernetes.client.Config.fromKubeconfig(java.nio.file.Files.readString(file));
    assertThat(config.getMasterUrl()).startsWith(cluster.url());
    try (KubernetesClient fromFile = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(config).build()) {
      assertThat(fromFile.nodes().list().getItems()).extracting(n -> n.getMetadata().getName())
          .contains("sim-h100-0", "sim-a100-0", "sim-cpu-0");
    }
  }

  private static String phase(String pod) {
    Pod current = client.pods().inNamespace("default").withName(pod).get();
    return current == null || current.getStatus() == null ? null : current.getStatus().getPhase();
  }

  private static String readyStatus(String node) {
    return client.nodes().withName(node).get().getStatus().getConditions().stream()
        .filter(c -> "Ready".equals(c.getType())).findFirst().orElseThrow().getStatus();
  }

  private static Pod pod(String name, Map<String, String> nodeSelector, String nodeName) {
    return new PodBuilder()
        .withNewMetadata().withName(name).withNamespace("default").endMetadata()
        .withNewSpec()
        .withNodeName(nodeName)
        .withNodeSelector(nodeSelector)
        .addNewContainer().withName("main").withImage("jupyter/base-notebook").endContainer()
        .endSpec()
        .build();
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(cluster.url() + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(String path, String body) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(cluster.url() + path))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
