package io.gshare.api.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jwt.SignedJWT;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.model.WorkerObjects;
import io.gshare.activities.control.WorkerDeployer;
import io.gshare.api.security.SigningKeyRing;
import io.gshare.api.security.TokenKind;
import io.gshare.api.security.Tokens;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.HistoryRecorder;
import io.gshare.api.support.NewTestIds;
import io.gshare.client.ApiResponse;
import io.gshare.localdeployer.LocalProcessWorkerDeployer;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.KubeCluster;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.client.WorkflowClient;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleDescription;
import io.temporal.client.schedules.ScheduleHandle;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Operator-token rotation end to end: a simulated cluster attached with its real worker process, the
 * rotation workflow on the embedded Temporal server, the worker re-reading its token file.
 */
// Its confirmation settings (40s, every second) are in ApiIntegrationTest: properties of its own would start
// a second application context whose control worker takes the other tests' attach activities.
class TokenRotationIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;
  @Autowired WorkerDeployer deployer;
  @Autowired ScheduleClient schedules;
  @Autowired TokenRotationSchedules rotationSchedules;
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

  /** A real Kubernetes (KubeCluster) attached through the API with its real worker; returns {cluster id, simulator index}. */
  private String attach(KubeCluster sim) throws Exception {
    admin = admin == null ? adminToken() : admin;
    String kubeconfig = Files.readString(sim.writeKubeconfig(dir.resolve(NewTestIds.next("kc"))));
    String name = "rot-" + NewTestIds.next("x").replace('_', '-');
    ApiResponse response = post("/api/v1/clusters",
        json.writeValueAsString(Map.of("name", name, "kubeconfig", kubeconfig)), admin);
    assertThat(response.status()).as(response.text()).isEqualTo(202);
    JsonNode accepted = json.readTree(response.text());
    awaitOperation(accepted.at("/operation/id").asText(), "completed");
    return accepted.at("/cluster/id").asText();
  }

  private KubeCluster simulator() {
    KubeCluster sim = KubeCluster.start(SimSeed.defaultSeed(),
        KubeCluster.Options.defaults().withName(NewTestIds.next("sim")));
    clusters.add(sim);
    return sim;
  }

  private JsonNode awaitOperation(String operationId, String status) {
    JsonNode[] last = new JsonNode[1];
    await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
      last[0] = json.readTree(get("/api/v1/operations/" + operationId, admin).text());
      assertThat(last[0].get("status").asText()).as(last[0].toString()).isEqualTo(status);
    });
    return last[0];
  }

  private static String secretToken(KubeCluster sim) {
    try (KubernetesClient client = sim.newClient()) {
      Secret secret = client.secrets().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.TOKEN_SECRET).get();
      if (secret.getData() != null && secret.getData().containsKey(WorkerObjects.TOKEN_KEY)) {
        return new String(Base64.getDecoder().decode(secret.getData().get(WorkerObjects.TOKEN_KEY)), StandardCharsets.UTF_8);
      }
      return secret.getStringData().get(WorkerObjects.TOKEN_KEY);
    }
  }

  private static String jti(String token) throws Exception {
    return SignedJWT.parse(token).getJWTClaimsSet().getJWTID();
  }

  private Map<String, Object> row(String clusterId) {
    return jdbc.sql("select jti, expires_at, rotated_at, seen_jti, seen_at from operator_tokens where cluster_id = :c")
        .param("c", clusterId).query().singleRow();
  }

  private Instant inventoryAt(String clusterId) {
    return jdbc.sql("select inventory_at from clusters where id = :c").param("c", clusterId)
        .query(Timestamp.class).single().toInstant();
  }

  /** Every payload of the execution's history, decoded: what an operator could read in the Temporal UI. */
  private String decodedPayloads(String workflowId) {
    String history = workflows.fetchHistory(workflowId).toJson(false);
    StringBuilder all = new StringBuilder(history).append('\n');
    Matcher data = Pattern.compile("\"data\":\\s*\"([A-Za-z0-9+/=]+)\"").matcher(history);
    while (data.find()) {
      all.append(new String(Base64.getDecoder().decode(data.group(1)), StandardCharsets.UTF_8)).append('\n');
    }
    return all.toString();
  }

  /** An /internal call with {@code token}: 200 while it verifies. */
  private int internalCall(String clusterId, String token) {
    return post("/internal/v1/sessions/status", "{\"sessions\":[]}", token).status();
  }

  @Test
  void aRotationWritesANewTokenTheWorkerTakesWithoutRestartAndTheOldOneStillVerifies() throws Exception {
    KubeCluster sim = simulator();
    String clusterId = attach(sim);
    String before = secretToken(sim);
    // The attach recorded the token it wrote, and the worker's reports use it.
    assertThat(row(clusterId).get("jti")).isEqualTo(jti(before));
    await().atMost(Duration.ofSeconds(30)).until(() -> jti(before).equals(row(clusterId).get("seen_jti")));
    long pid = ((LocalProcessWorkerDeployer) deployer).process(clusterId).pid();

    ApiResponse rotate = post("/api/v1/clusters/" + clusterId + "/rotate-token", "{}", admin);
    assertThat(rotate.status()).as(rotate.text()).isEqualTo(202);
    String operationId = json.readTree(rotate.text()).at("/operation/id").asText();
    assertThat(operationId).isEqualTo(WorkflowIds.tokenRotation(clusterId));
    JsonNode operation = awaitOperation(operationId, "completed");
    JsonNode step = operation.get("steps").get(1);
    assertThat(step.get("name").asText()).isEqualTo("rotate " + clusterId);
    assertThat(step.get("status").asText()).as(operation.toString()).isEqualTo("done");
    assertThat(step.get("detail").asText()).contains("the worker authenticates with it");
    HistoryRecorder.record(workflows, operationId, "token-rotation");

    String after = secretToken(sim);
    assertThat(jti(after)).isNotEqualTo(jti(before)).isEqualTo(row(clusterId).get("jti"));
    assertThat(decodedPayloads(operationId)).as("the token never enters workflow history")
        .contains(jti(after)).doesNotContain(after).doesNotContain(after.substring(after.lastIndexOf('.') + 1));
    assertThat(row(clusterId).get("seen_jti")).isEqualTo(jti(after));
    // Same process, still reporting after the rotation.
    assertThat(((LocalProcessWorkerDeployer) deployer).process(clusterId).pid()).isEqualTo(pid);
    Instant rotatedAt = Instant.now();
    await().atMost(Duration.ofSeconds(20)).until(() -> inventoryAt(clusterId).isAfter(rotatedAt));
    // The old token verifies until it expires.
    assertThat(internalCall(clusterId, before)).isEqualTo(200);
    assertThat(internalCall(clusterId, after)).isEqualTo(200);

    // The connection test shows the token's expiry and the last rotation.
    JsonNode test = json.readTree(post("/api/v1/clusters/" + clusterId + "/connection-test", "{}", admin).text());
    assertThat(test.get("status").asText()).isEqualTo("connected");
    JsonNode token = test.get("operator_token");
    assertThat(token.get("jti").asText()).isEqualTo(jti(after));
    assertThat(Instant.parse(token.get("expires_at").asText()))
        .isBetween(Instant.now().plus(Duration.ofDays(7)).minusSeconds(300), Instant.now().plus(Duration.ofDays(7)));
    assertThat(Instant.parse(token.get("last_rotated_at").asText())).isAfter(Instant.now().minusSeconds(300));
    assertThat(token.get("worker_uses_latest").asBoolean()).isTrue();

    // A second rotation while none runs is accepted again; an unknown cluster is 404; a user is refused.
    assertThat(post("/api/v1/clusters/clu_nosuch/rotate-token", "{}", admin).status()).isEqualTo(404);
    assertThat(post("/api/v1/clusters/" + clusterId + "/rotate-token", "{}", tokenFor(newUser("user"))).status())
        .isEqualTo(403);
  }

  @Test
  void aTokenSecretDeletedOutsideGshareIsWrittenAgainWithAFreshTokenTheWorkerTakes() throws Exception {
    KubeCluster sim = simulator();
    String clusterId = attach(sim);
    String before = secretToken(sim);
    await().atMost(Duration.ofSeconds(30)).until(() -> jti(before).equals(row(clusterId).get("seen_jti")));
    long pid = ((LocalProcessWorkerDeployer) deployer).process(clusterId).pid();

    try (KubernetesClient client = sim.newClient()) {
      client.secrets().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.TOKEN_SECRET).delete();
    }
    // The worker's next report says the Secret is gone; the api rotates this cluster's token into a new one.
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).until(() -> {
      try (KubernetesClient client = sim.newClient()) {
        return client.secrets().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.TOKEN_SECRET).get() != null;
      }
    });
    String after = secretToken(sim);
    assertThat(jti(after)).isNotEqualTo(jti(before));
    JsonNode operation = awaitOperation(WorkflowIds.tokenRotation(clusterId), "completed");
    assertThat(operation.get("steps").get(1).get("status").asText()).as(operation.toString()).isEqualTo("done");
    assertThat(row(clusterId).get("seen_jti")).isEqualTo(jti(after));
    assertThat(((LocalProcessWorkerDeployer) deployer).process(clusterId).pid()).as("no restart").isEqualTo(pid);
  }

  @Test
  void aRotationRacingAnAttachLeavesAWorkingTokenWhicheverWritesLast() throws Exception {
    KubeCluster sim = simulator();
    String clusterId = attach(sim);
    String first = secretToken(sim);

    CompletableFuture<ApiResponse> reattach =
        CompletableFuture.supplyAsync(() -> post("/api/v1/clusters/" + clusterId + "/attach", "{}", admin));
    CompletableFuture<ApiResponse> rotate =
        CompletableFuture.supplyAsync(() -> post("/api/v1/clusters/" + clusterId + "/rotate-token", "{}", admin));
    assertThat(reattach.get().status()).as(reattach.get().text()).isEqualTo(202);
    assertThat(rotate.get().status()).as(rotate.get().text()).isEqualTo(202);
    awaitOperation(WorkflowIds.clusterAttach(clusterId), "completed");
    // Completed either way: a token the worker did not take (the attach wrote after it) is reported, not failed.
    awaitOperation(WorkflowIds.tokenRotation(clusterId), "completed");

    String last = secretToken(sim);
    assertThat(jti(last)).isNotEqualTo(jti(first));
    // The last writer's token is the one the worker ends up using, and every token signed still verifies.
    await().atMost(Duration.ofSeconds(30)).until(() -> jti(last).equals(row(clusterId).get("seen_jti")));
    assertThat(internalCall(clusterId, last)).isEqualTo(200);
    assertThat(internalCall(clusterId, first)).isEqualTo(200);
    assertThat(jdbc.sql("select status from clusters where id = :c").param("c", clusterId).query(String.class).single())
        .isEqualTo("connected");
  }

  @Test
  void anExpiredOperatorTokenIsRefusedWith401() throws Exception {
    var lagging = new EnumMap<TokenKind, SigningKeyRing>(TokenKind.class);
    var past = Clock.offset(Clock.systemUTC(), Duration.ofDays(-8));
    for (TokenKind kind : TokenKind.values()) {
      lagging.put(kind, SigningKeyRing.open(keyDir().resolve(kind.keySetFile()), kind.keySetName(), Duration.ofDays(8), false, past));
    }
    // A seven-day token signed eight days ago.
    String expired = new Tokens("gshare", lagging, Duration.ofSeconds(60), past)
        .sign(TokenKind.INTERNAL, "operator:" + SIM_CLUSTER_ID, null, Duration.ofDays(7));
    ApiResponse response = post("/internal/v1/sessions/status", "{\"sessions\":[]}", expired);
    assertThat(response.status()).isEqualTo(401);
    assertThat(json.readTree(response.text()).get("detail").asText()).isEqualTo("token expired");
  }

  @Test
  void bothSchedulesExistAfterBootAndCreatingThemAgainFindsThem() {
    ScheduleHandle tokens = schedules.getHandle(WorkflowIds.TOKEN_ROTATION);
    ScheduleDescription described = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .until(tokens::describe, d -> d != null);
    assertThat(described.getSchedule().getSpec().getIntervals()).extracting(ScheduleIntervalSpec::getEvery)
        .containsExactly(Duration.ofHours(24));
    ScheduleHandle keys = schedules.getHandle(WorkflowIds.SIGNING_KEY_ROTATION);
    assertThat(keys.describe().getSchedule().getSpec().getIntervals()).extracting(ScheduleIntervalSpec::getEvery)
        .containsExactly(Duration.ofDays(30));

    // What an api restart does: create again, find them, keep them.
    assertThat(rotationSchedules.start()).isTrue();
    assertThat(tokens.describe().getSchedule().getSpec().getIntervals()).extracting(ScheduleIntervalSpec::getEvery)
        .containsExactly(Duration.ofHours(24));
    assertThat(tokens.describe().getSchedule().getState().isPaused()).isFalse();
  }

  @Test
  void theSigningKeyScheduleRotatesTheInternalKeyAndKeepsTheOldOneVerifying() throws Exception {
    String signedBefore = operatorToken(SIM_CLUSTER_ID);
    String kidBefore = SignedJWT.parse(signedBefore).getHeader().getKeyID();
    ScheduleHandle keys = schedules.getHandle(WorkflowIds.SIGNING_KEY_ROTATION);
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(keys::describe, d -> d != null);
    long actions = keys.describe().getInfo().getNumActions();

    keys.trigger();

    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() ->
        !SignedJWT.parse(operatorToken(SIM_CLUSTER_ID)).getHeader().getKeyID().equals(kidBefore));
    assertThat(keys.describe().getInfo().getNumActions()).isGreaterThan(actions);
    assertThat(tokens.publicKeys(TokenKind.INTERNAL).getKeyByKeyId(kidBefore)).as("the old key stays in the JWKS").isNotNull();
    assertThat(internalCall(SIM_CLUSTER_ID, signedBefore)).isEqualTo(200);
  }
}
