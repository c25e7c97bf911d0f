package io.gshare.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Node drain against the simulator: cordon (strategic merge patch), the eviction subresource with
 * PodDisruptionBudgets, pod lists by {@code spec.nodeName}, and the real kubectl's cordon, uncordon
 * and drain. Every test works on a node and namespace of its own.
 */
class NodeDrainSimTest {

  private static final String TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

  private static SimulatedCluster cluster;
  private static KubernetesClient client;
  /** fabric8 retries a 429 with backoff (about 20 s by default) before evict() answers false; not here. */
  private static KubernetesClient noRetry;
  private static final HttpClient http = HttpClient.newHttpClient();

  @TempDir
  static Path dir;

  @BeforeAll
  static void start() {
    cluster = SimulatedCluster.start(
        SimulatedCluster.defaultSeed(),
        new SimulatedCluster.Options("drain", "127.0.0.1", 0, Duration.ofMillis(50), Duration.ofMillis(100)));
    client = cluster.newClient();
    noRetry = new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder(client.getConfiguration()).withRequestRetryBackoffLimit(0).build()).build();
  }

  @AfterAll
  static void stop() {
    noRetry.close();
    client.close();
    cluster.close();
  }

  // --- cordon -------------------------------------------------------------------------------------

  @Test
  void cordonByStrategicMergePatchShowsSchedulingDisabled() throws Exception {
    String node = node("cordon-patch");

    client.nodes().withName(node).patch(PatchContext.of(PatchType.STRATEGIC_MERGE), "{\"spec\":{\"unschedulable\":true}}");
    assertThat(client.nodes().withName(node).get().getSpec().getUnschedulable()).isTrue();
    assertThat(nodeStatusCell(node)).isEqualTo("Ready,SchedulingDisabled");
    assertThat(client.nodes().withName(node).get().getMetadata().getLabels())
        .as("the merge keeps what the patch does not name").containsEntry("kubernetes.io/hostname", node);

    assertThat(post("/sim/v1/nodes/" + node + "/drop", "").statusCode()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> "NotReady,SchedulingDisabled".equals(nodeStatusCell(node)));
    assertThat(post("/sim/v1/nodes/" + node + "/restore", "").statusCode()).isEqualTo(200);

    // uncordon as kubectl words it: the field goes away
    client.nodes().withName(node).patch(PatchContext.of(PatchType.STRATEGIC_MERGE), "{\"spec\":{\"unschedulable\":null}}");
    assertThat(client.nodes().withName(node).get().getSpec().getUnschedulable()).isNull();
    await().atMost(Duration.ofSeconds(10)).until(() -> "Ready".equals(nodeStatusCell(node)));
  }

  @Test
  void strategicMergePatchRefusesDirectivesAndAnswers404ForAMissingNode() throws Exception {
    String node = node("cordon-refused");
    HttpResponse<String> directive = patch("/api/v1/nodes/" + node,
        "{\"spec\":{\"$setElementOrder/taints\":[],\"unschedulable\":true}}");
    assertThat(directive.statusCode()).isEqualTo(400);
    assertThat(directive.body()).contains("$setElementOrder/taints");
    assertThat(client.nodes().withName(node).get().getSpec().getUnschedulable()).isNull();

    HttpResponse<String> missing = patch("/api/v1/nodes/no-such-node", "{\"spec\":{\"unschedulable\":true}}");
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(missing.body()).contains("\"reason\":\"NotFound\"").contains("nodes \\\"no-such-node\\\" not found");
  }

  @Test
  void cordonKeepsRunningPodsAndStopsOnlyNewBindings() throws Exception {
    String node = node("cordon-kubelet");
    String ns = "cordon-kubelet";
    create(pod(ns, "running", node, Map.of()));
    awaitRunning(ns, "running");

    cordon(node, true);
    Pod selecting = new PodBuilder(pod(ns, "selecting", null, Map.of()))
        .editSpec().addToNodeSelector("kubernetes.io/hostname", node).endSpec().build();
    create(selecting);
    create(pod(ns, "pinned-after", node, Map.of()));

    awaitRunning(ns, "pinned-after"); // nodeName bypasses the scheduler, as on a real cluster
    Thread.sleep(500); // ten kubelet ticks
    assertThat(phase(ns, "running")).isEqualTo("Running");
    assertThat(ready(ns, "running")).isTrue();
    Pod waiting = client.pods().inNamespace(ns).withName("selecting").get();
    assertThat(waiting.getSpec().getNodeName()).isNull();
    assertThat(waiting.getStatus().getPhase()).isEqualTo("Pending");
    assertThat(waiting.getStatus().getConditions())
        .anyMatch(c -> "Unschedulable".equals(c.getReason()) && c.getMessage().contains("were unschedulable"));

    cordon(node, false);
    awaitRunning(ns, "selecting");
    assertThat(client.pods().inNamespace(ns).withName("selecting").get().getSpec().getNodeName()).isEqualTo(node);
  }

  // --- field selectors ----------------------------------------------------------------------------

  @Test
  void listsPodsBySpecNodeNameInEveryNamespaceAndInOne() throws Exception {
    String a = node("select-a");
    String b = node("select-b");
    create(pod("select-one", "on-a", a, Map.of()));
    create(pod("select-two", "also-on-a", a, Map.of()));
    create(pod("select-two", "on-b", b, Map.of()));

    assertThat(names(client.pods().inAnyNamespace().withField("spec.nodeName", a).list().getItems()))
        .containsExactlyInAnyOrder("on-a", "also-on-a");
    assertThat(names(client.pods().inNamespace("select-two").withField("spec.nodeName", a).list().getItems()))
        .containsExactly("also-on-a");
    assertThat(names(client.pods().inNamespace("select-two").withoutField("spec.nodeName", a).list().getItems()))
        .containsExactly("on-b");

    HttpResponse<String> raw = get("/api/v1/pods?fieldSelector=spec.nodeName%3D" + b + "&limit=500");
    assertThat(raw.statusCode()).isEqualTo(200);
    assertThat(raw.body()).startsWith("{\"apiVersion\":\"v1\",\"kind\":\"PodList\"").contains("\"on-b\"")
        .doesNotContain("\"on-a\"");
    HttpResponse<String> both = get("/api/v1/namespaces/select-two/pods?fieldSelector="
        + "metadata.namespace%3Dselect-two%2Cspec.nodeName%3D%3D" + a);
    assertThat(both.body()).contains("\"also-on-a\"").doesNotContain("\"on-b\"").doesNotContain("\"on-a\"");
    assertThat(get("/api/v1/pods?fieldSelector=spec.nodeName%3Dno-such-node").body()).contains("\"items\":[]");
  }

  // --- eviction -----------------------------------------------------------------------------------

  @Test
  void evictingAPodNoBudgetSelectsDeletesItAndWatchesSeeDeleted() throws Exception {
    String node = node("evict-free");
    String ns = "evict-free";
    create(pod(ns, "free", node, Map.of("app", "free")));
    create(pod(ns, "free-raw", node, Map.of("app", "free")));
    awaitRunning(ns, "free");
    awaitRunning(ns, "free-raw");
    // a budget in another namespace, and one selecting other labels, do not apply
    create(minAvailable("elsewhere", "guard", 5, "app", "free"));
    create(minAvailable(ns, "other", 5, "app", "other"));

    List<String> events = Collections.synchronizedList(new ArrayList<>());
    try (Watch watch = client.pods().inNamespace(ns).withName("free").watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, Pod pod) {
        events.add(action.name());
      }

      @Override
      public void onClose(WatcherException cause) {}
    })) {
      assertThat(noRetry.pods().inNamespace(ns).withName("free").evict()).isTrue();
      await().atMost(Duration.ofSeconds(5)).until(() -> events.contains("DELETED"));
    }
    assertThat(client.pods().inNamespace(ns).withName("free").get()).isNull();

    HttpResponse<String> raw = evict(ns, "free-raw");
    assertThat(raw.statusCode()).isEqualTo(201);
    assertThat(raw.body()).contains("\"kind\":\"Status\"").contains("\"status\":\"Success\"").contains("\"code\":201");
    assertThat(client.pods().inNamespace(ns).withName("free-raw").get()).isNull();
  }

  @Test
  void aBudgetAtItsMinimumRefusesWith429AndKeepsThePod() throws Exception {
    String node = node("evict-min");
    String ns = "evict-min";
    create(pod(ns, "db-0", node, Map.of("app", "db")));
    create(pod(ns, "db-1", node, Map.of("app", "db")));
    awaitRunning(ns, "db-0");
    awaitRunning(ns, "db-1");
    create(minAvailable(ns, "db", 2, "app", "db"));

    assertThat(noRetry.pods().inNamespace(ns).withName("db-0").evict()).isFalse();
    HttpResponse<String> raw = evict(ns, "db-1");
    assertThat(raw.statusCode()).isEqualTo(429);
    assertThat(raw.body())
        .contains("\"status\":\"Failure\"")
        .contains("\"reason\":\"TooManyRequests\"")
        .contains("\"message\":\"Cannot evict pod as it would violate the pod's disruption budget.\"")
        .contains("{\"reason\":\"DisruptionBudget\",\"message\":\"The disruption budget db needs 2 healthy pods and has 2 currently\"}")
        .contains("\"code\":429");
    assertThat(client.pods().inNamespace(ns).withName("db-0").get()).isNotNull();
    assertThat(client.pods().inNamespace(ns).withName("db-1").get()).isNotNull();

    // one more healthy pod than the budget needs: one eviction goes through, the next is refused
    create(pod(ns, "db-2", node, Map.of("app", "db")));
    awaitRunning(ns, "db-2");
    assertThat(noRetry.pods().inNamespace(ns).withName("db-0").evict()).isTrue();
    assertThat(noRetry.pods().inNamespace(ns).withName("db-1").evict()).isFalse();
  }

  @Test
  void maxUnavailableOneAllowsOneEvictionThenBlocksTheNext() throws Exception {
    String node = node("evict-max");
    String ns = "evict-max";
    ReplicaSet web = client.apps().replicaSets().inNamespace(ns).resource(new ReplicaSetBuilder()
        .withNewMetadata().withName("web").withNamespace(ns).endMetadata()
        .withNewSpec().withReplicas(3).withNewSelector().addToMatchLabels("app", "web").endSelector().endSpec()
        .build()).create();
    for (int i = 0; i < 3; i++) {
      create(new PodBuilder(pod(ns, "web-" + i, node, Map.of("app", "web")))
          .editMetadata().withOwnerReferences(controller(web)).endMetadata().build());
    }
    for (int i = 0; i < 3; i++) {
      awaitRunning(ns, "web-" + i);
    }
    create(new PodDisruptionBudgetBuilder()
        .withNewMetadata().withName("web").withNamespace(ns).endMetadata()
        .withNewSpec().withMaxUnavailable(new IntOrString(1))
        .withNewSelector().addNewMatchExpression().withKey("app").withOperator("In").withValues("web", "api")
        .endMatchExpression().endSelector().endSpec()
        .build());

    assertThat(noRetry.pods().inNamespace(ns).withName("web-0").evict()).isTrue();
    assertThat(client.pods().inNamespace(ns).withName("web-0").get()).isNull();
    // 3 expected (the ReplicaSet's replicas), 2 healthy, 2 needed
    HttpResponse<String> next = evict(ns, "web-1");
    assertThat(next.statusCode()).isEqualTo(429);
    assertThat(next.body()).contains("The disruption budget web needs 2 healthy pods and has 2 currently");
    assertThat(noRetry.pods().inNamespace(ns).withName("web-2").evict()).isFalse();
    assertThat(names(client.pods().inNamespace(ns).list().getItems())).containsExactlyInAnyOrder("web-1", "web-2");
  }

  @Test
  void evictionAnswers404ForAMissingPod500ForTwoBudgetsAndHonoursDeleteOptions() throws Exception {
    String ns = "evict-errors";
    HttpResponse<String> missing = evict(ns, "ghost");
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(missing.body()).contains("\"reason\":\"NotFound\"").contains("pods \\\"ghost\\\" not found");

    String node = node("evict-errors");
    create(pod(ns, "twice", node, Map.of("app", "twice", "tier", "x")));
    awaitRunning(ns, "twice");
    create(minAvailable(ns, "by-app", 0, "app", "twice"));
    create(minAvailable(ns, "by-tier", 0, "tier", "x"));
    HttpResponse<String> two = evict(ns, "twice");
    assertThat(two.statusCode()).isEqualTo(500);
    assertThat(two.body()).contains("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.");
    assertThat(client.pods().inNamespace(ns).withName("twice").get()).isNotNull();

    String eviction = "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"lonely\"},"
        + "\"deleteOptions\":{%s}}";
    create(pod(ns, "lonely", node, Map.of("app", "lonely")));
    awaitRunning(ns, "lonely");
    HttpResponse<String> dryRun = post("/api/v1/namespaces/" + ns + "/pods/lonely/eviction",
        eviction.formatted("\"dryRun\":[\"All\"]"));
    assertThat(dryRun.statusCode()).isEqualTo(201);
    assertThat(client.pods().inNamespace(ns).withName("lonely").get()).as("a dry run deletes nothing").isNotNull();
    HttpResponse<String> stale = post("/api/v1/namespaces/" + ns + "/pods/lonely/eviction",
        eviction.formatted("\"preconditions\":{\"uid\":\"not-the-uid\"}"));
    assertThat(stale.statusCode()).isEqualTo(409);
    assertThat(stale.body()).contains("Precondition failed: UID in precondition: not-the-uid");
    assertThat(client.pods().inNamespace(ns).withName("lonely").get()).isNotNull();

    HttpResponse<String> wrongName = post("/api/v1/namespaces/" + ns + "/pods/twice/eviction",
        "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"other\",\"namespace\":\"" + ns + "\"}}");
    assertThat(wrongName.statusCode()).isEqualTo(400);
  }

  @Test
  void discoveryOffersTheEvictionSubresourceAndBudgets() throws Exception {
    assertThat(get("/api/v1").body())
        .contains("{\"kind\":\"Eviction\",\"group\":\"policy\",\"name\":\"pods/eviction\"")
        .contains("\"verbs\":[\"create\"],\"version\":\"v1\"");
    assertThat(get("/apis/policy/v1").body()).contains("\"name\":\"poddisruptionbudgets\"");
  }

  // --- the real kubectl ---------------------------------------------------------------------------

  @Test
  void kubectlCordonsAndUncordons() throws Exception {
    String node = node("kubectl-cordon");

    Run cordon = kubectl("cordon", node);
    assertThat(cordon.exit()).as(cordon.output()).isZero();
    assertThat(cordon.output()).contains("node/" + node + " cordoned");
    assertThat(client.nodes().withName(node).get().getSpec().getUnschedulable()).isTrue();
    Run get = kubectl("get", "nodes");
    assertThat(get.exit()).as(get.output()).isZero();
    assertThat(line(get.output(), node)).contains("Ready,SchedulingDisabled");
    assertThat(line(get.output(), "sim-a100-0")).doesNotContain("SchedulingDisabled");

    Run uncordon = kubectl("uncordon", node);
    assertThat(uncordon.exit()).as(uncordon.output()).isZero();
    assertThat(uncordon.output()).contains("node/" + node + " uncordoned");
    assertThat(client.nodes().withName(node).get().getSpec().getUnschedulable()).isNull();
    assertThat(line(kubectl("get", "nodes").output(), node)).doesNotContain("SchedulingDisabled");
  }

  @Test
  void kubectlDrainEvictsPlainPodsAndLeavesDaemonSetPods() throws Exception {
    String node = node("kubectl-drain");
    String ns = "kubectl-drain";
    DaemonSet agent = client.apps().daemonSets().inNamespace(ns).resource(new DaemonSetBuilder()
        .withNewMetadata().withName("agent").withNamespace(ns).endMetadata()
        .withNewSpec().withNewSelector().addToMatchLabels("app", "agent").endSelector().endSpec()
        .build()).create();
    create(new PodBuilder(pod(ns, "agent-" + node, node, Map.of("app", "agent")))
        .editMetadata().withOwnerReferences(controller(agent)).endMetadata().build());
    create(new PodBuilder(pod(ns, "scratch", node, Map.of("app", "scratch")))
        .editSpec().addNewVolume().withName("tmp").withNewEmptyDir().endEmptyDir().endVolume().endSpec().build());
    create(pod("kubectl-drain-other", "bare", node, Map.of()));
    create(pod(ns, "elsewhere", "sim-cpu-0", Map.of()));
    awaitRunning(ns, "agent-" + node);
    awaitRunning(ns, "scratch");
    awaitRunning("kubectl-drain-other", "bare");

    Run drain = kubectl("drain", node, "--ignore-daemonsets", "--delete-emptydir-data", "--force", "--timeout=30s");
    assertThat(drain.exit()).as(drain.output()).isZero();
    assertThat(drain.output())
        .contains("evicting pod " + ns + "/scratch")
        .contains("evicting pod kubectl-drain-other/bare")
        .contains("node/" + node + " drained")
        .doesNotContain("evicting pod " + ns + "/agent-");
    assertThat(client.nodes().withName(node).get().getSpec().getUnschedulable()).isTrue();
    assertThat(client.pods().inNamespace(ns).withName("scratch").get()).isNull();
    assertThat(client.pods().inNamespace("kubectl-drain-other").withName("bare").get()).isNull();
    assertThat(phase(ns, "agent-" + node)).isEqualTo("Running");
    assertThat(phase(ns, "elsewhere")).as("a pod on another node is not touched").isNotNull();
  }

  @Test
  void kubectlDrainBlockedByABudgetFailsAtItsTimeoutAndKeepsThePod() throws Exception {
    String node = node("kubectl-blocked");
    String ns = "kubectl-blocked";
    create(pod(ns, "guarded", node, Map.of("app", "guarded")));
    awaitRunning(ns, "guarded");
    create(minAvailable(ns, "guarded", 1, "app", "guarded"));

    long started = System.nanoTime();
    Run drain = kubectl("drain", node, "--ignore-daemonsets", "--delete-emptydir-data", "--force", "--timeout=3s");
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
    assertThat(drain.exit()).as(drain.output()).isNotZero();
    assertThat(drain.output())
        .contains("Cannot evict pod as it would violate the pod's disruption budget.")
        .contains("will retry after 5s")
        .contains("global timeout reached");
    assertThat(seconds).as("kubectl retried until its timeout").isGreaterThanOrEqualTo(3);
    assertThat(phase(ns, "guarded")).isEqualTo("Running");
    assertThat(client.nodes().withName(node).get().getSpec().getUnschedulable()).as("left cordoned").isTrue();
  }

  // --- helpers ------------------------------------------------------------------------------------

  private static String node(String name) {
    assertThat(cluster.addNode(new SimSeed.NodeSpec(name, "cpu", null, Map.of()))).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> "Ready".equals(nodeStatusCell(name)));
    return name;
  }

  private static void cordon(String node, boolean on) {
    client.nodes().withName(node).patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
        "{\"spec\":{\"unschedulable\":" + (on ? "true" : "null") + "}}");
  }

  /** The STATUS cell of the node's row in the server-side table kubectl asks for. */
  private static String nodeStatusCell(String node) throws Exception {
    HttpResponse<String> table = http.send(HttpRequest.newBuilder(URI.create(cluster.url() + "/api/v1/nodes?limit=500"))
        .header("Accept", TABLE).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(table.statusCode()).isEqualTo(200);
    var rows = new com.fasterxml.jackson.databind.ObjectMapper().readTree(table.body()).path("rows");
    for (var row : rows) {
      if (node.equals(row.path("cells").path(0).asText())) {
        return row.path("cells").path(1).asText();
      }
    }
    return null;
  }

  private static Pod pod(String ns, String name, String nodeName, Map<String, String> labels) {
    return new PodBuilder()
        .withNewMetadata().withName(name).withNamespace(ns).withLabels(labels).endMetadata()
        .withNewSpec()
        .withNodeName(nodeName)
        .addNewContainer().withName("main").withImage("jupyter/base-notebook").endContainer()
        .endSpec()
        .build();
  }

  private static PodDisruptionBudget minAvailable(String ns, String name, int min, String key, String value) {
    return new PodDisruptionBudgetBuilder()
        .withNewMetadata().withName(name).withNamespace(ns).endMetadata()
        .withNewSpec().withMinAvailable(new IntOrString(min)).withNewSelector().addToMatchLabels(key, value).endSelector()
        .endSpec()
        .build();
  }

  private static OwnerReference controller(HasMetadata owner) {
    return new OwnerReferenceBuilder().withApiVersion("apps/v1").withKind(owner.getKind())
        .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid()).withController(true).build();
  }

  private static void create(HasMetadata object) {
    client.resource(object).create();
  }

  private static void awaitRunning(String ns, String pod) {
    await().atMost(Duration.ofSeconds(10)).until(() -> "Running".equals(phase(ns, pod)) && ready(ns, pod));
  }

  private static String phase(String ns, String pod) {
    Pod current = client.pods().inNamespace(ns).withName(pod).get();
    return current == null || current.getStatus() == null ? null : current.getStatus().getPhase();
  }

  private static boolean ready(String ns, String pod) {
    return DisruptionBudgets.ready(client.pods().inNamespace(ns).withName(pod).get());
  }

  private static List<String> names(List<Pod> pods) {
    return pods.stream().map(p -> p.getMetadata().getName()).toList();
  }

  private static String line(String output, String node) {
    return output.lines().filter(l -> l.startsWith(node + " ")).findFirst().orElse("<no line for " + node + ">");
  }

  private static HttpResponse<String> evict(String ns, String pod) throws Exception {
    return post("/api/v1/namespaces/" + ns + "/pods/" + pod + "/eviction",
        "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"" + pod + "\",\"namespace\":\"" + ns + "\"}}");
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

  private static HttpResponse<String> patch(String path, String body) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(cluster.url() + path))
        .header("Content-Type", StrategicMergePatch.CONTENT_TYPE)
        .method("PATCH", HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private record Run(int exit, String output) {}

  /** The real kubectl from {@code make tools}, against the simulator's kubeconfig, with a private cache. */
  private static Run kubectl(String... args) throws IOException, InterruptedException {
    Path kubeconfig = dir.resolve("sim.kubeconfig");
    if (!Files.exists(kubeconfig)) {
      cluster.writeKubeconfig(kubeconfig);
    }
    List<String> command = new ArrayList<>(List.of(kubectlBinary().toString(), "--kubeconfig", kubeconfig.toString(),
        "--cache-dir", dir.resolve("kube-cache").toString()));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "kubectl", ".out");
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      fail("kubectl " + String.join(" ", args) + " did not finish in 60 s: " + Files.readString(out));
    }
    return new Run(process.exitValue(), Files.readString(out));
  }

  /** {@code .tools/bin/kubectl} of the repository this test runs in, found by walking up from here. */
  private static Path kubectlBinary() {
    for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
      Path candidate = at.resolve(".tools/bin/kubectl");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return fail("no .tools/bin/kubectl above " + Path.of("").toAbsolutePath() + ": run make tools (hack/tools.sh) first");
  }
}
