package io.gshare.api.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.NewTestIds;
import io.gshare.client.ApiResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** /internal: operator tokens only, scoped to their cluster, all-or-nothing. */
class InternalPlaneIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;
  private String clusterA;
  private String clusterB;

  @BeforeEach
  void twoClusters() {
    clusterA = register("a");
    clusterB = register("b");
  }

  private String register(String name) {
    String id = NewTestIds.next("clu");
    jdbc.sql("insert into clusters (id, name, status, session_domain) values (:id, :name, 'connected', :domain)")
        .param("id", id).param("name", id.replace('_', '-')).param("domain", id.replace('_', '-') + ".example.com").update();
    return id;
  }

  private static String inventory(String clusterId, String hostname, String gpuUuid) {
    return """
        {"cluster_id":"%s","apiserver_version":"v1.36.0","nodes":[
          {"hostname":"%s","ready":true,"schedulable":true,"gpu_mode":"exclusive","lossless_pause":false,
           "labels":{"gpu":"on"},
           "gpus":[{"uuid":"%s","index":0,"model":"NVIDIA H100 80GB HBM3","memory_mib":81559,"cores_percent":100,
                    "split_count":1,"healthy":true}]}]}
        """.formatted(clusterId, hostname, gpuUuid);
  }

  private int count(String sql, String param) {
    return jdbc.sql(sql).param("p", param).query(Integer.class).single();
  }

  @Test
  void everyBadTokenIsA401ProblemAndWritesNothing() throws Exception {
    String body = inventory(clusterA, "gpu-a1", "GPU-" + clusterA);
    String userToken = tokenFor(newUser("admin"));
    String unregistered = operatorToken("clu_neverregistered");
    String notOperator = tokens.sign(TokenKind.INTERNAL, "someone:" + clusterA, null, Duration.ofHours(1));

    for (String bad : new String[] {null, "garbage", userToken, unregistered, notOperator}) {
      ApiResponse response = post("/internal/v1/inventory", body, bad);
      assertThat(response.status()).as(String.valueOf(bad)).isEqualTo(401);
      assertThat(response.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
      assertThat(json.readTree(response.text()).get("code").asText()).isEqualTo("unauthorized");
    }
    assertThat(count("select count(*) from nodes where cluster_id = :p", clusterA)).isZero();
  }

  @Test
  void anExpiredOperatorTokenIsA401() throws Exception {
    // Signed an hour in the past by a ring whose clock lags: expired well beyond the skew.
    var lagging = new EnumMap<TokenKind, SigningKeyRing>(TokenKind.class);
    var past = Clock.offset(Clock.systemUTC(), Duration.ofHours(-2));
    for (TokenKind kind : TokenKind.values()) {
      lagging.put(kind, SigningKeyRing.open(keyDir().resolve(kind.keySetFile()), kind.keySetName(), Duration.ofDays(8), false, past));
    }
    String expired = new Tokens("gshare", lagging, Duration.ofSeconds(60), past)
        .sign(TokenKind.INTERNAL, "operator:" + clusterA, null, Duration.ofHours(1));

    ApiResponse response = post("/internal/v1/inventory", inventory(clusterA, "gpu-a1", "GPU-x" + clusterA), expired);
    assertThat(response.status()).isEqualTo(401);
    assertThat(json.readTree(response.text()).get("detail").asText()).isEqualTo("token expired");
  }

  @Test
  void aWorkerUpsertsItsOwnInventoryAndOnlyWhatChanged() throws Exception {
    String token = operatorToken(clusterA);
    String gpu = "GPU-own-" + clusterA;
    ApiResponse first = post("/internal/v1/inventory", inventory(clusterA, "gpu-a1", gpu), token);
    assertThat(first.status()).as(first.text()).isEqualTo(200);
    assertThat(json.readTree(first.text()).get("nodes_inserted").asInt()).isEqualTo(1);
    assertThat(json.readTree(first.text()).get("gpus_inserted").asInt()).isEqualTo(1);

    ApiResponse again = post("/internal/v1/inventory", inventory(clusterA, "gpu-a1", gpu), token);
    JsonNode applied = json.readTree(again.text());
    assertThat(applied.get("nodes_inserted").asInt() + applied.get("nodes_updated").asInt()
        + applied.get("gpus_inserted").asInt() + applied.get("gpus_updated").asInt()).isZero();

    JsonNode nodes = json.readTree(get("/api/v1/nodes?cluster_id=" + clusterA, adminToken()).text());
    assertThat(nodes.at("/items/0/hostname").asText()).isEqualTo("gpu-a1");
    assertThat(nodes.at("/items/0/liveness").asText()).isEqualTo("ready");
    assertThat(nodes.at("/items/0/gpus/0/uuid").asText()).isEqualTo(gpu);
  }

  @Test
  void inventoryNamingAnotherClusterIs403AndNothingIsWritten() throws Exception {
    String tokenA = operatorToken(clusterA);
    assertThat(post("/internal/v1/inventory", inventory(clusterB, "gpu-b1", "GPU-b1" + clusterB), operatorToken(clusterB))
        .status()).isEqualTo(200);

    ApiResponse otherCluster = post("/internal/v1/inventory", inventory(clusterB, "gpu-x", "GPU-x" + clusterB), tokenA);
    assertThat(otherCluster.status()).isEqualTo(403);
    assertThat(json.readTree(otherCluster.text()).get("code").asText()).isEqualTo("forbidden");

    // Claiming B's card in A's own report: the whole batch is refused, A's own node included.
    ApiResponse stolenGpu = post("/internal/v1/inventory", inventory(clusterA, "gpu-a9", "GPU-b1" + clusterB), tokenA);
    assertThat(stolenGpu.status()).isEqualTo(403);

    assertThat(count("select count(*) from nodes where cluster_id = :p", clusterA)).isZero();
    assertThat(count("select count(*) from nodes where cluster_id = :p and hostname = 'gpu-x'", clusterB)).isZero();
    assertThat(jdbc.sql("select n.cluster_id from gpu_devices g join nodes n on n.id = g.node_id where g.uuid = :u")
        .param("u", "GPU-b1" + clusterB).query(String.class).single()).isEqualTo(clusterB);
    assertThat(count("select count(*) from audit_events where actor = :p and outcome = 'denied'", "operator:" + clusterA))
        .isGreaterThanOrEqualTo(2);
  }

  @Test
  void statusUsageAndVolumeReportsStayInsideTheCluster() throws Exception {
    String owner = newUser("user");
    String sessionA = session(owner, clusterA);
    String sessionB = session(owner, clusterB);
    String volumeB = NewTestIds.next("vol");
    jdbc.sql("insert into volumes (id, owner_id, name, size_gb) values (:id, :o, :n, 10)")
        .param("id", volumeB).param("o", owner).param("n", volumeB.replace('_', '-')).update();
    jdbc.sql("insert into volume_claims (volume_id, cluster_id, pvc_name) values (:v, :c, 'pvc-b')")
        .param("v", volumeB).param("c", clusterB).update();
    String tokenA = operatorToken(clusterA);

    ApiResponse mixed = post("/internal/v1/sessions/status", """
        {"sessions":[{"session_id":"%s","phase":"Running","pod_ip":"10.244.0.5"},
                     {"session_id":"%s","phase":"Failed"}]}""".formatted(sessionA, sessionB), tokenA);
    assertThat(mixed.status()).isEqualTo(403);
    assertThat(jdbc.sql("select pod_phase from sessions where id in (:a, :b)").param("a", sessionA).param("b", sessionB)
        .query(String.class).list()).containsOnlyNulls();

    ApiResponse own = post("/internal/v1/sessions/status",
        "{\"sessions\":[{\"session_id\":\"%s\",\"phase\":\"Running\",\"pod_ip\":\"10.244.0.5\"}]}".formatted(sessionA), tokenA);
    assertThat(own.status()).isEqualTo(200);
    assertThat(jdbc.sql("select pod_phase from sessions where id = :a").param("a", sessionA).query(String.class).single())
        .isEqualTo("Running");
    assertThat(json.readTree(own.text()).get("accepted").asInt()).isEqualTo(1);
    // The next tick with nothing changed writes nothing; a moved pod is written.
    ApiResponse same = post("/internal/v1/sessions/status",
        "{\"sessions\":[{\"session_id\":\"%s\",\"phase\":\"Running\",\"pod_ip\":\"10.244.0.5\"}]}".formatted(sessionA), tokenA);
    assertThat(json.readTree(same.text()).get("accepted").asInt()).isZero();
    ApiResponse moved = post("/internal/v1/sessions/status",
        "{\"sessions\":[{\"session_id\":\"%s\",\"phase\":\"Running\",\"pod_ip\":\"10.244.0.6\"}]}".formatted(sessionA), tokenA);
    assertThat(json.readTree(moved.text()).get("accepted").asInt()).isEqualTo(1);

    ApiResponse usage = post("/internal/v1/usage", """
        {"samples":[{"session_id":"%s","gpu_util_percent":12.5,"sampled_at":"2026-12-02T10:00:00Z"}]}""".formatted(sessionB), tokenA);
    assertThat(usage.status()).isEqualTo(403);
    ApiResponse volumes = post("/internal/v1/volumes/sync", """
        {"volumes":[{"volume_id":"%s","pvc_name":"pvc-a","phase":"Bound","used_bytes":1}]}""".formatted(volumeB), tokenA);
    assertThat(volumes.status()).isEqualTo(403);
    assertThat(count("select count(*) from session_usage where session_id = :p", sessionB)).isZero();
    assertThat(count("select count(*) from volume_claims where volume_id = :p", volumeB)).isEqualTo(1);
  }

  @Test
  void theJwksPublishesTheInternalKeysOnly() throws Exception {
    ApiResponse response = get("/.well-known/gshare-internal-jwks.json", null);
    assertThat(response.status()).isEqualTo(200);
    assertThat(response.text()).startsWith("{\"keys\":[{\"alg\":\"RS256\"");
    JsonNode key = json.readTree(response.text()).at("/keys/0");
    assertThat(key.get("alg").asText()).isEqualTo("RS256");
    assertThat(key.get("kid").asText()).startsWith("internal-signing-");
    assertThat(key.has("d")).isFalse();
    assertThat(response.text()).doesNotContain("user-signing");
  }

  private String session(String userId, String clusterId) {
    String id = NewTestIds.next("ses");
    jdbc.sql("""
        insert into sessions (id, user_id, state, cluster_id, gpu_model, mode, price_per_hour, image_reference, workflow_id)
        values (:id, :u, 'running', :c, 'NVIDIA H100 80GB HBM3', 'exclusive', 4, 'img', :w)
        """).param("id", id).param("u", userId).param("c", clusterId).param("w", "session-" + id).update();
    return id;
  }
}
