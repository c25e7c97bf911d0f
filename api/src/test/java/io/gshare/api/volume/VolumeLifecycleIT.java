package io.gshare.api.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.NewTestIds;
import io.gshare.client.ApiResponse;
import io.gshare.core.credit.CreditLedger;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.KubeCluster;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.util.ReflectionTestUtils;

/**
 * A volume's whole life on the dev runtime's parts (real PostgreSQL, the Temporal dev server, a simulated
 * cluster with a CSI-like StorageClass and its real worker): pool capacity from the worker's sync, a
 * session that claims and mounts the volume, used bytes from the kubelet's stats, an approved expansion
 * applied to the claim, delete → reclaim after a short grace → claim gone, and a restore within the grace.
 *
 * <p>The grace is shortened on the running service for these tests only: a {@code @TestPropertySource} would
 * start a second application context, whose control worker would take workflows and activities of the
 * other tests' context from the shared task queue (and run their workers with its own settings).
 */
class VolumeLifecycleIT extends ApiIntegrationTest {

  static final String MODEL = "NVIDIA A40";
  /** Only on the second cluster: a session of this model lands there. */
  static final String MODEL_B = "NVIDIA A10";
  static final String STORAGE_CLASS = "gshare-e2e-nfs";
  static final long GIB = 1024L * 1024 * 1024;

  private static KubeCluster sim;
  private static KubeCluster simB;
  private static String clusterId;
  private static String clusterB;
  private static String offering;
  private static String offeringB;
  private static String image;
  private static String pool;

  static final Duration SHORT_GRACE = Duration.ofSeconds(4);

  @Autowired ObjectMapper json;
  @Autowired CreditLedger ledger;
  @Autowired VolumeService volumeService;
  private String admin;
  private Object configuredGrace;

  @BeforeEach
  void aShortGrace() {
    configuredGrace = ReflectionTestUtils.getField(volumeService, "grace");
    ReflectionTestUtils.setField(volumeService, "grace", SHORT_GRACE);
  }

  @AfterEach
  void theConfiguredGrace() {
    ReflectionTestUtils.setField(volumeService, "grace", configuredGrace);
  }

  @BeforeEach
  void aClusterWithStorage() throws Exception {
    admin = adminToken();
    if (sim != null) {
      return;
    }
    SimSeed seed = new SimSeed("v1.37.2", List.of(
        new SimSeed.NodeSpec("a40-0", "exclusive", new SimSeed.GpuSpec(MODEL, 2, 46068, null), Map.of()),
        new SimSeed.NodeSpec("store-0", "cpu", null, Map.of("gshare.io/role", "storage"), "800Gi")), null,
        List.of(new SimSeed.StorageClassSpec(STORAGE_CLASS, "org.democratic-csi.gshare-nfs", true, "Delete", "Immediate",
            false, List.of(new SimSeed.CapacitySpec("democratic-csi", null, "100Gi", "100Gi", null)))));
    sim = startCluster(seed, "volumes");
    clusterId = attach(sim);
    simB = startCluster(new SimSeed("v1.37.2", List.of(
        new SimSeed.NodeSpec("a10-0", "exclusive", new SimSeed.GpuSpec(MODEL_B, 1, 23028, null), Map.of())), null,
        List.of(new SimSeed.StorageClassSpec(STORAGE_CLASS, "org.democratic-csi.gshare-nfs", true, "Delete", "Immediate",
            false, List.of()))), "volumes-b");
    clusterB = attach(simB);
    offeringB = offering(MODEL_B);
    offering = offering(MODEL);
    image = json.readTree(post("/api/v1/images", "{\"name\":\"" + NewTestIds.next("jupyter")
        + "\",\"reference\":\"registry.example.com/gshare/jupyter:2026.11\"}", admin).text()).get("id").asText();
    ApiResponse poolCreated = post("/api/v1/storage/pools", """
        {"name":"%s","cluster_id":"%s","storage_class":"%s","scope":"all","capacity_source":"csi"}
        """.formatted(NewTestIds.next("e2e"), clusterId, STORAGE_CLASS), admin);
    assertThat(poolCreated.status()).as(poolCreated.text()).isEqualTo(201);
    pool = json.readTree(poolCreated.text()).get("id").asText();
    // The worker's sync reports the class's CSIStorageCapacity: the pool's capacity.
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      JsonNode now = json.readTree(get("/api/v1/storage/pools/" + pool, admin).text());
      assertThat(now.path("total_gb").asLong()).as(now.toString()).isEqualTo(100);
    });
  }

  private String attach(KubeCluster cluster) throws Exception {
    String kubeconfig = Files.readString(cluster.writeKubeconfig(Files.createTempFile("volumes", ".kubeconfig")));
    JsonNode accepted = json.readTree(post("/api/v1/clusters", json.writeValueAsString(Map.of(
        "name", NewTestIds.next("volumes").replace('_', '-'), "kubeconfig", kubeconfig,
        "session_domain", "gshare." + NewTestIds.next("lab").replace('_', '-') + ".example.com")), admin).text());
    String operation = accepted.at("/operation/id").asText();
    await().atMost(Duration.ofSeconds(180)).until(() ->
        "completed".equals(json.readTree(get("/api/v1/operations/" + operation, admin).text()).path("status").asText()));
    return accepted.at("/cluster/id").asText();
  }

  private String offering(String model) throws Exception {
    ApiResponse created = post("/api/v1/offerings", "{\"name\":\"" + NewTestIds.next("off") + "\",\"gpu_model\":\""
        + model + "\",\"mode\":\"exclusive\",\"gpu_count\":1,\"price_per_hour\":3}", admin);
    assertThat(created.status()).as(created.text()).isEqualTo(201);
    return json.readTree(created.text()).get("id").asText();
  }

  private String user() {
    String user = newUser("user");
    ledger.grant(user, new BigDecimal("100"), NewTestIds.next("g"), "test", null);
    return tokenFor(user);
  }

  private String volume(String token, int sizeGb) throws Exception {
    ApiResponse created = post("/api/v1/volumes", "{\"name\":\"%s\",\"size_gb\":%d,\"pool_id\":\"%s\"}"
        .formatted(NewTestIds.next("data").replace('_', '-'), sizeGb, pool), token);
    assertThat(created.status()).as(created.text()).isEqualTo(201);
    return json.readTree(created.text()).get("id").asText();
  }

  private String runSession(String token, String volume) throws Exception {
    return runSession(token, volume, offering);
  }

  private String runSession(String token, String volume, String offeringId) throws Exception {
    ApiResponse created = post("/api/v1/sessions", "{\"offering_id\":\"" + offeringId + "\",\"image_id\":\"" + image
        + "\",\"volume_id\":\"" + volume + "\"}", token);
    assertThat(created.status()).as(created.text()).isEqualTo(202);
    String id = json.readTree(created.text()).at("/session/id").asText();
    await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> assertThat(
        json.readTree(get("/api/v1/sessions/" + id, admin).text()).at("/session/state").asText()).isEqualTo("running"));
    return id;
  }

  private void end(String token, String session) {
    assertThat(send("DELETE", "/api/v1/sessions/" + session, null, token).status()).isEqualTo(200);
  }

  private PersistentVolumeClaim claim(String volume) {
    return claim(sim, volume);
  }

  private static PersistentVolumeClaim claim(KubeCluster cluster, String volume) {
    try (KubernetesClient k8s = cluster.newClient()) {
      return k8s.persistentVolumeClaims().inNamespace("gshare-sessions").withLabel("gshare.io/volume-id", volume).list()
          .getItems().stream().findFirst().orElse(null);
    }
  }

  private JsonNode volumeView(String volume) throws Exception {
    return json.readTree(get("/api/v1/volumes/" + volume, admin).text());
  }

  @Test
  void aVolumeIsClaimedWhereItsSessionRunsGrowsOnApprovalAndIsReclaimedAfterTheGrace() throws Exception {
    String token = user();
    String volume = volume(token, 10);
    String session = runSession(token, volume);

    PersistentVolumeClaim claim = claim(volume);
    assertThat(claim.getSpec().getStorageClassName()).isEqualTo(STORAGE_CLASS);
    assertThat(claim.getStatus().getPhase()).isEqualTo("Bound");
    assertThat(sim.setVolumeUsedBytes("gshare-sessions", claim.getMetadata().getName(), 3 * GIB)).isTrue();
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(volumeView(volume).path("used_bytes").asLong()).isEqualTo(3 * GIB));
    assertThat(volumeView(volume).toString()).contains(clusterId);

    // The owner asks for 20 GiB, an admin approves, the sync applies it to the claim.
    ApiResponse asked = post("/api/v1/volumes/" + volume + "/expansion", "{\"size_gb\":20}", token);
    assertThat(asked.status()).as(asked.text()).isIn(200, 201, 202);
    String expansion = json.readTree(asked.text()).path("id").asText();
    ApiResponse approved = post("/api/v1/volume-expansions/" + expansion + "/approve", null, admin);
    assertThat(approved.status()).as(approved.text()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(40)).untilAsserted(() -> {
      assertThat(claim(volume).getStatus().getCapacity().get("storage")).isEqualTo(new Quantity("20Gi"));
      JsonNode now = volumeView(volume);
      assertThat(now.path("size_gb").asInt()).as(now.toString()).isEqualTo(20);
      assertThat(now.path("status").asText()).isEqualTo("available");
    });

    end(token, session);
    ApiResponse deleted = send("DELETE", "/api/v1/volumes/" + volume, null, token);
    assertThat(deleted.status()).as(deleted.text()).isEqualTo(202);
    String operation = "volume-reclaim-" + volume;
    await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
      JsonNode op = json.readTree(get("/api/v1/operations/" + operation, admin).text());
      assertThat(op.path("status").asText()).as(op.toString()).isEqualTo("completed");
    });
    assertThat(claim(volume)).as("the claim is gone from the cluster").isNull();
    JsonNode reclaimed = volumeView(volume);
    assertThat(reclaimed.path("status").asText()).isEqualTo("reclaimed");
    assertThat(reclaimed.path("sessions").toString()).as("history kept").contains(session);
    assertThat(post("/api/v1/volumes/" + volume + "/restore", null, token).status()).isEqualTo(409);
  }

  @Test
  void aVolumeRestoredWithinTheGraceKeepsItsClaimAndServesAgain() throws Exception {
    String token = user();
    String volume = volume(token, 5);
    end(token, runSession(token, volume));
    String claimName = claim(volume).getMetadata().getName();

    assertThat(send("DELETE", "/api/v1/volumes/" + volume, null, token).status()).isEqualTo(202);
    ApiResponse restored = post("/api/v1/volumes/" + volume + "/restore", null, token);
    assertThat(restored.status()).as(restored.text()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      JsonNode op = json.readTree(get("/api/v1/operations/volume-reclaim-" + volume, admin).text());
      assertThat(op.path("status").asText()).as(op.toString()).isEqualTo("completed");
      assertThat(op.toString()).contains("restored within the grace period");
    });
    Thread.sleep(5_000); // past the grace: nothing may happen now
    assertThat(claim(volume)).isNotNull();
    assertThat(claim(volume).getMetadata().getName()).isEqualTo(claimName);
    assertThat(volumeView(volume).path("status").asText()).isEqualTo("available");
    end(token, runSession(token, volume));
  }

  @Test
  void aSecondClusterInScopeGetsItsOwnClaimAndAClusterOutOfScopeIsNeverChosen() throws Exception {
    String token = user();
    String volume = volume(token, 4);
    end(token, runSession(token, volume));
    assertThat(claim(volume)).isNotNull();

    // The next session of the volume needs an A10, which only the second cluster has: its own claim there.
    end(token, runSession(token, volume, offeringB));
    PersistentVolumeClaim there = claim(simB, volume);
    assertThat(there).as("a claim on the second cluster").isNotNull();
    assertThat(there.getSpec().getStorageClassName()).isEqualTo(STORAGE_CLASS);
    assertThat(volumeView(volume).path("claims").toString()).contains(clusterId).contains(clusterB);

    // A pool only the first cluster may mount: a session needing the second cluster is refused, not placed there.
    ApiResponse selected = post("/api/v1/storage/pools", """
        {"name":"%s","cluster_id":"%s","storage_class":"%s","scope":"selected","cluster_ids":["%s"],
         "capacity_source":"manual","manual_capacity_gb":50}
        """.formatted(NewTestIds.next("only-a"), clusterId, STORAGE_CLASS, clusterId), admin);
    assertThat(selected.status()).as(selected.text()).isEqualTo(201);
    String onlyA = json.readTree(post("/api/v1/volumes", "{\"name\":\"%s\",\"size_gb\":2,\"pool_id\":\"%s\"}"
        .formatted(NewTestIds.next("only-a").replace('_', '-'), json.readTree(selected.text()).get("id").asText()), token)
        .text()).get("id").asText();
    ApiResponse refused = post("/api/v1/sessions", "{\"offering_id\":\"" + offeringB + "\",\"image_id\":\"" + image
        + "\",\"volume_id\":\"" + onlyA + "\"}", token);
    assertThat(refused.status()).as(refused.text()).isEqualTo(409);
    assertThat(refused.text()).contains("may mount your volume's storage pool");
    assertThat(claim(simB, onlyA)).isNull();
  }
}
