package io.gshare.api.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.activities.control.WorkerDeployer;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.HistoryRecorder;
import io.gshare.api.support.NewTestIds;
import io.gshare.client.ApiResponse;
import io.gshare.localdeployer.LocalProcessWorkerDeployer;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.KubeCluster;
import io.temporal.client.WorkflowClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Attach and detach end to end: real PostgreSQL, the embedded Temporal server, simulated clusters
 * and real cluster-worker processes started by the attach workflow.
 */
class ClusterLifecycleIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;
  @Autowired WorkerDeployer deployer;
  @Autowired WorkflowClient workflows;
  @TempDir Path dir;
  private final List<KubeCluster> clusters = new ArrayList<>();
  private String admin;

  @BeforeAll
  static void workerJarIsBuilt() {
    assertThat(Path.of("..", "cluster-worker", "target", "gshare-cluster-worker.jar"))
        .as("the reactor builds cluster-worker before api").exists();
  }

  @AfterEach
  void stopClusters() {
    clusters.forEach(KubeCluster::close);
    clusters.clear();
  }

  private KubeCluster simulator(SimSeed seed) {
    KubeCluster cluster = KubeCluster.start(seed, KubeCluster.Options.defaults().withName(NewTestIds.next("sim")));
    clusters.add(cluster);
    return cluster;
  }

  private String kubeconfig(KubeCluster cluster) throws Exception {
    return Files.readString(cluster.writeKubeconfig(dir.resolve(NewTestIds.next("kc"))));
  }

  /** Registers a cluster; returns {cluster id, operation id}. */
  private String[] register(String name, String kubeconfig, String domain) throws Exception {
    admin = admin == null ? adminToken() : admin;
    Map<String, String> body = new HashMap<>(Map.of("name", name, "kubeconfig", kubeconfig, "ingress_node", "master-c2"));
    if (domain != null) {
      body.put("session_domain", domain);
    }
    ApiResponse response = post("/api/v1/clusters", json.writeValueAsString(body), admin);
    assertThat(response.status()).as(response.text()).isEqualTo(202);
    JsonNode accepted = json.readTree(response.text());
    assertThat(accepted.at("/cluster/status").asText()).isIn("pending", "attaching");
    assertThat(response.text()).doesNotContain("kubeconfig");
    return new String[] {accepted.at("/cluster/id").asText(), accepted.at("/operation/id").asText()};
  }

  private JsonNode awaitOperation(String operationId, String status) {
    JsonNode[] last = new JsonNode[1];
    await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
      last[0] = json.readTree(get("/api/v1/operations/" + operationId, admin).text());
      assertThat(last[0].get("status").asText()).as(last[0].toString()).isEqualTo(status);
    });
    return last[0];
  }

  private JsonNode cluster(String id) throws Exception {
    return json.readTree(get("/api/v1/clusters/" + id, admin).text());
  }

  private JsonNode nodes(String clusterId) throws Exception {
    return json.readTree(get("/api/v1/nodes?cluster_id=" + clusterId, admin).text()).get("items");
  }

  @Test
  void twoClustersAttachEndToEndEachWithItsOwnWorker() throws Exception {
    String[] first = register("lab-c1-" + NewTestIds.next("x").replace('_', '-'), kubeconfig(simulator(SimSeed.defaultSeed())),
        "gshare.lab-c1.example.com");
    String[] second = register("lab-c2-" + NewTestIds.next("x").replace('_', '-'), kubeconfig(simulator(SimSeed.defaultSeed())),
        "gshare.lab-c2.example.com");

    for (String[] attached : List.of(first, second)) {
      JsonNode operation = awaitOperation(attached[1], "completed");
      assertThat(operation.get("steps")).allSatisfy(step -> assertThat(step.get("status").asText()).isEqualTo("done"));
      assertThat(operation.get("next_step")).isNull();
      JsonNode cluster = cluster(attached[0]);
      assertThat(cluster.get("status").asText()).isEqualTo("connected");
      assertThat(cluster.get("simulated").asBoolean()).isTrue();
      assertThat(cluster.get("gpu_count").asInt()).isEqualTo(12);
      assertThat(nodes(attached[0])).hasSize(3);
    }
    Process one = ((LocalProcessWorkerDeployer) deployer).process(first[0]);
    Process two = ((LocalProcessWorkerDeployer) deployer).process(second[0]);
    assertThat(one.pid()).isNotEqualTo(two.pid());
    assertThat(json.readTree(get("/api/v1/gpus?model=NVIDIA%20H100%2080GB%20HBM3&cluster_id=" + first[0], admin).text())
        .get("items")).hasSize(8);

    JsonNode test = json.readTree(post("/api/v1/clusters/" + second[0] + "/connection-test", "{}", admin).text());
    assertThat(test.get("status").asText()).isEqualTo("connected");
    assertThat(test.at("/checks/runtime_class_nvidia").asBoolean()).isTrue();

    // Attaching again converges on the same state: one worker, still connected.
    ApiResponse again = post("/api/v1/clusters/" + first[0] + "/attach", "{}", admin);
    assertThat(again.status()).isEqualTo(202);
    awaitOperation(first[1], "completed");
    assertThat(((LocalProcessWorkerDeployer) deployer).process(first[0]).pid()).isEqualTo(one.pid());
  }

  @Test
  void aClusterWithoutRuntimeClassNvidiaIsRefusedWithTheReason() throws Exception {
    SimSeed noRuntimeClass = new SimSeed("v1.37.2", SimSeed.defaultSeed().nodes(), new SimSeed.Addons(false, true, true));
    String[] attach = register("no-rc-" + NewTestIds.next("x").replace('_', '-'), kubeconfig(simulator(noRuntimeClass)), null);

    JsonNode operation = awaitOperation(attach[1], "failed");
    assertThat(operation.get("error").asText()).contains("registration refused").contains("RuntimeClass 'nvidia'");
    JsonNode cluster = cluster(attach[0]);
    assertThat(cluster.get("status").asText()).isEqualTo("failed");
    assertThat(cluster.get("status_reason").asText()).contains("RuntimeClass 'nvidia'");
    assertThat(((LocalProcessWorkerDeployer) deployer).process(attach[0])).isNull();
  }

  @Test
  void aWorkerKilledDuringAttachIsReplacedAndTheAttachCompletesOnce() throws Exception {
    String[] attach = register("killed-" + NewTestIds.next("x").replace('_', '-'), kubeconfig(simulator(SimSeed.defaultSeed())),
        "gshare.killed.example.com");
    LocalProcessWorkerDeployer local = (LocalProcessWorkerDeployer) deployer;
    await().atMost(Duration.ofSeconds(120)).until(() -> local.process(attach[0]) != null);
    Process first = local.process(attach[0]);
    first.destroyForcibly();

    JsonNode operation = awaitOperation(attach[1], "completed");
    Process replacement = local.process(attach[0]);
    assertThat(replacement.pid()).isNotEqualTo(first.pid());
    assertThat(replacement.isAlive()).isTrue();
    assertThat(cluster(attach[0]).get("status").asText()).isEqualTo("connected");
  }

  @Test
  void newNodesAppearWithoutRegistrationAndSilentNodesGoOfflineWithAnAlert() throws Exception {
    KubeCluster sim = simulator(SimSeed.defaultSeed());
    String[] attach = register("grow-" + NewTestIds.next("x").replace('_', '-'), kubeconfig(sim), "gshare.grow.example.com");
    awaitOperation(attach[1], "completed");

    // A node joins the cluster (a KWOK node carrying what HAMi's device plugin writes), nothing told to gShare.
    assertThat(sim.addNode(new SimSeed.NodeSpec("sim-l40s-0", "fractional",
        new SimSeed.GpuSpec("NVIDIA L40S", 2, 46068, null), Map.of()))).isTrue();
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(nodes(attach[0])).hasSize(4));
    // This cluster's cards of the model: other classes' clusters may hold the same model.
    assertThat(json.readTree(get("/api/v1/gpus?model=NVIDIA%20L40S", admin).text()).get("items"))
        .filteredOn(gpu -> gpu.path("cluster_id").asText().equals(attach[0])).hasSize(2);

    // The worker goes away: every node stops being reported, goes offline after the stale time, and is alerted once.
    deployer.remove(attach[0], null);
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      assertThat(nodes(attach[0])).allSatisfy(n -> assertThat(n.get("liveness").asText()).isEqualTo("offline"));
      assertThat(cluster(attach[0]).get("offline_nodes").asInt()).isEqualTo(4);
    });
    String nodeId = nodes(attach[0]).get(0).get("id").asText();
    // One alert, and still one after a few more liveness sweeps (1 s apart here).
    await().atMost(Duration.ofSeconds(15)).during(Duration.ofSeconds(4)).untilAsserted(() -> assertThat(json.readTree(
        get("/api/v1/audit?action=node.offline&object_id=" + nodeId, admin).text()).get("items")).hasSize(1));
    assertThat(json.readTree(get("/api/v1/nodes?cluster_id=" + attach[0] + "&liveness=ready", admin).text())
        .get("items")).isEmpty();
  }

  @Test
  void aKubeconfigIsRotatedInPlaceOnlyForTheSameClusterAndTheAttachChecksRunAgain() throws Exception {
    KubeCluster sim = simulator(SimSeed.defaultSeed());
    String name = "rotate-" + NewTestIds.next("x").replace('_', '-');
    String[] attach = register(name, kubeconfig(sim), "gshare.rotate.example.com");
    awaitOperation(attach[1], "completed");
    String id = attach[0];
    String uid;
    try (var client = sim.newClient()) {
      uid = client.namespaces().withName("kube-system").get().getMetadata().getUid();
    }
    // the attach's probe recorded which cluster the kubeconfig reaches
    assertThat(jdbc.sql("select kube_system_uid from clusters where id = :id").param("id", id).query(String.class).single())
        .isEqualTo(uid);
    byte[] before = jdbc.sql("select kubeconfig_ciphertext from clusters where id = :id").param("id", id)
        .query(byte[].class).single();

    // another cluster's kubeconfig, one that reaches nothing, one that does not parse: 422, nothing changes
    ApiResponse other = send("PATCH", "/api/v1/clusters/" + id, json.writeValueAsString(Map.of(
        "kubeconfig", kubeconfig(simulator(SimSeed.defaultSeed())), "ingress_node", "elsewhere")), admin);
    assertThat(other.status()).as(other.text()).isEqualTo(422);
    assertThat(json.readTree(other.text()).get("detail").asText()).contains("reaches another cluster").contains(uid);
    String dead = kubeconfig(sim).replaceAll("server: \\S+", "server: https://10.255.255.1:1");
    ApiResponse unreachable = send("PATCH", "/api/v1/clusters/" + id,
        json.writeValueAsString(Map.of("kubeconfig", dead)), admin);
    assertThat(unreachable.status()).as(unreachable.text()).isEqualTo(422);
    assertThat(json.readTree(unreachable.text()).get("detail").asText()).contains("does not reach its cluster");
    assertThat(send("PATCH", "/api/v1/clusters/" + id, "{\"kubeconfig\":\"not: [a kubeconfig\"}", admin).status())
        .isEqualTo(422);
    assertThat(jdbc.sql("select kubeconfig_ciphertext from clusters where id = :id").param("id", id).query(byte[].class)
        .single()).isEqualTo(before);
    assertThat(cluster(id).get("ingress_node").asText()).isEqualTo("master-c2");

    // the same cluster's new kubeconfig: stored in place, and the attach runs again to completion, no detach
    String firstAttachStarted = json.readTree(get("/api/v1/operations/" + attach[1], admin).text()).get("started_at").asText();
    ApiResponse rotated = send("PATCH", "/api/v1/clusters/" + id,
        json.writeValueAsString(Map.of("kubeconfig", kubeconfig(sim))), admin);
    assertThat(rotated.status()).as(rotated.text()).isEqualTo(200);
    assertThat(rotated.text()).doesNotContain("kubeconfig");
    assertThat(jdbc.sql("select kubeconfig_ciphertext from clusters where id = :id").param("id", id).query(byte[].class)
        .single()).isNotEqualTo(before);
    JsonNode reattached = awaitOperation(attach[1], "completed");
    assertThat(reattached.get("started_at").asText()).isNotEqualTo(firstAttachStarted);
    assertThat(cluster(id).get("status").asText()).isEqualTo("connected");
    assertThat(nodes(id)).isNotEmpty();
    // Every proof ran as a workflow on the control queue (none on the request thread): three PATCHes with a
    // kubeconfig that parses (another cluster's, a dead one, the same cluster's), three proofs.
    assertThat(workflows.listExecutions("WorkflowType = 'KubeconfigProof' AND GshareClusterId = '" + id + "'"))
        .hasSize(3);
    workflows.listExecutions("WorkflowType = 'KubeconfigProof' AND GshareClusterId = '" + id + "'").findFirst()
        .ifPresent(e -> HistoryRecorder.record(workflows, e.getExecution().getWorkflowId(), "kubeconfig-proof"));
    workflows.listExecutions("WorkflowType = 'NodeLiveness' AND ExecutionStatus = 'Completed'").findFirst()
        .ifPresent(e -> HistoryRecorder.record(workflows, e.getExecution().getWorkflowId(), "node-liveness"));
  }

  @Test
  void detachIsRefusedWhileASessionRunsAndKeepsHistoryWhenItGoes() throws Exception {
    String name = "detach-" + NewTestIds.next("x").replace('_', '-');
    KubeCluster sim = simulator(SimSeed.defaultSeed());
    String[] attach = register(name, kubeconfig(sim), "gshare.detach.example.com");
    awaitOperation(attach[1], "completed");
    String user = newUser("user");
    String session = NewTestIds.next("ses");
    jdbc.sql("""
        insert into sessions (id, user_id, state, cluster_id, cluster_name, gpu_model, mode, price_per_hour,
                              image_reference, workflow_id)
        values (:id, :u, 'running', :c, :n, 'NVIDIA H100 80GB HBM3', 'exclusive', 4, 'img', :w)
        """).param("id", session).param("u", user).param("c", attach[0]).param("n", name).param("w", "session-" + session)
        .update();

    ApiResponse refused = send("DELETE", "/api/v1/clusters/" + attach[0], null, admin);
    assertThat(refused.status()).isEqualTo(409);
    assertThat(json.readTree(refused.text()).get("detail").asText()).contains("1 session(s) not ended").contains(session);
    assertThat(cluster(attach[0]).get("status").asText()).isEqualTo("connected");

    jdbc.sql("update sessions set state = 'terminated', ended_at = now() where id = :id").param("id", session).update();
    ApiResponse accepted = send("DELETE", "/api/v1/clusters/" + attach[0], null, admin);
    assertThat(accepted.status()).isEqualTo(202);
    awaitOperation(json.readTree(accepted.text()).at("/operation/id").asText(), "completed");

    assertThat(cluster(attach[0]).get("status").asText()).isEqualTo("detached");
    assertThat(jdbc.sql("select count(*) from nodes where cluster_id = :c").param("c", attach[0]).query(Integer.class).single())
        .isZero();
    assertThat(jdbc.sql("select cluster_name from sessions where id = :id").param("id", session).query(String.class).single())
        .isEqualTo(name);
    assertThat(((LocalProcessWorkerDeployer) deployer).process(attach[0])).isNull();
    assertThat(get("/api/v1/clusters", admin).text()).doesNotContain(attach[0]);
    // The name is free again (for the same cluster too).
    register(name, kubeconfig(sim), null);
  }

  @Test
  void badRegistrationsAreRefusedBeforeAnythingStarts() throws Exception {
    admin = adminToken();
    int before = jdbc.sql("select count(*) from clusters").query(Integer.class).single();
    for (String kubeconfig : new String[] {"{not yaml: [", "apiVersion: v1\nkind: Config\nclusters: []\n",
        "apiVersion: v1\nkind: Config\ncurrent-context: x\ncontexts: [{name: y, context: {cluster: c}}]\n"}) {
      ApiResponse response = post("/api/v1/clusters",
          json.writeValueAsString(Map.of("name", "bad-one", "kubeconfig", kubeconfig)), admin);
      assertThat(response.status()).as(kubeconfig).isEqualTo(422);
    }
    ApiResponse badName = post("/api/v1/clusters",
        json.writeValueAsString(Map.of("name", "Bad Name!", "kubeconfig", "x")), admin);
    assertThat(badName.status()).isEqualTo(422);
    assertThat(badName.text()).as("refused for its name, before the kubeconfig is read").contains("DNS label");
    assertThat(post("/api/v1/clusters", json.writeValueAsString(Map.of("name", "x", "kubeconfig", "y")),
        tokenFor(newUser("user"))).status()).isEqualTo(403);
    assertThat(jdbc.sql("select count(*) from clusters").query(Integer.class).single()).isEqualTo(before);
  }
}
