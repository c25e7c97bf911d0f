package io.gshare.api.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.NewTestIds;
import io.gshare.client.ApiResponse;
import io.gshare.core.credit.CreditLedger;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.KubeCluster;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The guide's "노드 제거" end to end: a real Kubernetes with KWOK nodes attached by the attach workflow with its real
 * cluster-worker process reporting every 2 s (a dropped node: its KWOK lease handed away). The session on the node is ended (found by filtering the
 * session list by node); a node whose kubelet stopped is still reported (not_ready) and cannot be deleted;
 * once {@code kubectl delete node} took it out of the cluster it is offline and goes, the billing history
 * staying; when the machine joins again it is a new node.
 */
class NodeRemovalOnKubernetesIT extends ApiIntegrationTest {

  private static final String MODEL = "NVIDIA L40";
  private static final String LEAVING = "l40s-0";

  @Autowired ObjectMapper json;
  @Autowired CreditLedger ledger;

  private KubeCluster sim;
  private String admin;

  @BeforeAll
  static void workerJarIsBuilt() {
    assertThat(Path.of("..", "cluster-worker", "target", "gshare-cluster-worker.jar"))
        .as("the reactor builds cluster-worker before api").exists();
  }

  @AfterEach
  void stopSimulator() {
    if (sim != null) {
      sim.close();
    }
  }

  private JsonNode read(ApiResponse response, int status) throws Exception {
    assertThat(response.status()).as(response.text()).isEqualTo(status);
    return response.text().isEmpty() ? null : json.readTree(response.text());
  }

  private JsonNode nodes(String clusterId, boolean includeRemoved) throws Exception {
    return read(get("/api/v1/nodes?cluster_id=" + clusterId + (includeRemoved ? "&include_removed=true" : ""), admin), 200)
        .get("items");
  }

  private JsonNode node(String clusterId, String hostname) throws Exception {
    for (JsonNode node : nodes(clusterId, true)) {
      if (node.get("hostname").asText().equals(hostname)) {
        return node;
      }
    }
    return null;
  }

  private int count(String sql, String sessionId) {
    return jdbc.sql(sql).param("s", sessionId).query(Integer.class).single();
  }

  @Test
  void aNodeDrainedAndDeletedFromItsClusterIsDeletedKeepingItsHistoryAndJoinsAgainAsANewNode() throws Exception {
    admin = adminToken();
    sim = KubeCluster.start(new SimSeed("v1.37.2", List.of(
        new SimSeed.NodeSpec("h100-0", "exclusive", new SimSeed.GpuSpec("NVIDIA H100 NVL", 2, 95830, null), Map.of()),
        new SimSeed.NodeSpec(LEAVING, "exclusive", new SimSeed.GpuSpec(MODEL, 1, 46068, null), Map.of())), null),
        KubeCluster.Options.defaults().withName(NewTestIds.next("noderm")));
    String kubeconfig = Files.readString(sim.writeKubeconfig(Files.createTempFile("noderm", ".kubeconfig")));
    JsonNode accepted = read(post("/api/v1/clusters", json.writeValueAsString(Map.of(
        "name", NewTestIds.next("noderm").replace('_', '-'), "kubeconfig", kubeconfig,
        "session_domain", "gshare." + NewTestIds.next("noderm").replace('_', '-') + ".example.com")), admin), 202);
    String clusterId = accepted.at("/cluster/id").asText();
    String operation = accepted.at("/operation/id").asText();
    await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofSeconds(1)).until(() ->
        "completed".equals(json.readTree(get("/api/v1/operations/" + operation, admin).text()).path("status").asText()));
    await().atMost(Duration.ofSeconds(30)).until(() -> node(clusterId, LEAVING) != null);
    String nodeId = node(clusterId, LEAVING).get("id").asText();

    // A session on the node, the one card of its model.
    String offering = read(post("/api/v1/offerings", json.writeValueAsString(Map.of("name", NewTestIds.next("off"),
        "gpu_model", MODEL, "mode", "exclusive", "gpu_count", 1, "price_per_hour", 6)), admin), 201).get("id").asText();
    String image = read(post("/api/v1/images", json.writeValueAsString(Map.of("name", NewTestIds.next("jupyter"),
        "reference", "registry.example.com/gshare/jupyter:2026.11")), admin), 201).get("id").asText();
    String user = newUser("user");
    ledger.grant(user, new BigDecimal("100"), NewTestIds.next("g"), "test", null);
    String token = tokenFor(user);
    String session = read(post("/api/v1/sessions", json.writeValueAsString(Map.of("offering_id", offering,
        "image_id", image)), token), 202).at("/session/id").asText();
    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() ->
        "running".equals(json.readTree(get("/api/v1/sessions/" + session, admin).text()).at("/session/state").asText()));
    assertThat(jdbc.sql("select node_id from sessions where id = :s").param("s", session).query(String.class).single())
        .isEqualTo(nodeId);

    // Still in the cluster and busy: refused as live first.
    JsonNode live = read(send("DELETE", "/api/v1/nodes/" + nodeId, null, admin), 409);
    assertThat(live.get("code").asText()).isEqualTo("node_live");

    // 1. The admin finds the node's sessions and ends them, so that they are settled.
    JsonNode onNode = read(get("/api/v1/sessions?node_id=" + nodeId, admin), 200).get("items");
    assertThat(onNode).extracting(s -> s.get("id").asText()).containsExactly(session);
    read(send("DELETE", "/api/v1/sessions/" + session, null, token), 200);
    int windows = count("select count(*) from billing_windows where session_id = :s", session);
    int entries = count("select count(*) from credit_ledger where session_id = :s", session);
    assertThat(windows).isEqualTo(1);

    // The node's kubelet stops (the machine is shut down): the worker reports it not ready, still in the cluster.
    sim.dropNode(LEAVING);
    // The node lifecycle controller marks it unreachable after its grace (20 s), the worker reports it next.
    await().atMost(Duration.ofSeconds(90)).until(() -> "not_ready".equals(node(clusterId, LEAVING).get("liveness").asText()));
    JsonNode notReady = read(send("DELETE", "/api/v1/nodes/" + nodeId, null, admin), 409);
    assertThat(notReady.get("code").asText()).isEqualTo("node_live");
    assertThat(notReady.get("detail").asText()).contains("not_ready").contains("kubectl delete node " + LEAVING);

    // 2. kubectl delete node: the next report no longer names it, and it shows offline.
    try (KubernetesClient k8s = sim.newClient()) {
      k8s.nodes().withName(LEAVING).delete();
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> "offline".equals(node(clusterId, LEAVING).get("liveness").asText()));
    assertThat(nodes(clusterId, false)).extracting(n -> n.get("hostname").asText()).doesNotContain(LEAVING);

    // 4. Deleted: the node and its card go, the history stays.
    read(send("DELETE", "/api/v1/nodes/" + nodeId, null, admin), 204);
    assertThat(node(clusterId, LEAVING)).isNull();
    assertThat(jdbc.sql("select count(*) from gpu_devices where node_id = :n").param("n", nodeId).query(Integer.class).single())
        .isZero();
    JsonNode ended = read(get("/api/v1/sessions/" + session, admin), 200).get("session");
    assertThat(ended.get("state").asText()).isEqualTo("terminated");
    assertThat(ended.has("node_id")).isFalse();
    assertThat(ended.get("node_hostname").asText()).isEqualTo(LEAVING);
    assertThat(count("select count(*) from billing_windows where session_id = :s", session)).isEqualTo(windows);
    assertThat(count("select count(*) from credit_ledger where session_id = :s", session)).isEqualTo(entries);
    assertThat(count("select count(*) from allocations where session_id = :s and node_id is null and gpu_uuid like 'GPU-%'",
        session)).isEqualTo(1);

    // The machine joins again (kubeadm join, its kubelet up): the worker's report registers a new node.
    assertThat(sim.addNode(new SimSeed.NodeSpec(LEAVING, "exclusive", new SimSeed.GpuSpec(MODEL, 1, 46068, null),
        Map.of()))).isTrue();
    await().atMost(Duration.ofSeconds(60)).until(() -> {
      JsonNode back = node(clusterId, LEAVING);
      return back != null && "ready".equals(back.get("liveness").asText());
    });
    JsonNode back = node(clusterId, LEAVING);
    assertThat(back.get("id").asText()).isNotEqualTo(nodeId);
    assertThat(back.get("gpus")).hasSize(1);
  }
}
