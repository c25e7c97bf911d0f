package io.gshare.api.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.InventoryFixture;
import io.gshare.api.support.NewTestIds;
import io.gshare.client.ApiResponse;
import io.gshare.contract.internal.InventoryReport;
import io.gshare.core.credit.BillingWindows;
import io.gshare.core.credit.CreditLedger;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.node.InventoryWriter;
import io.gshare.core.placement.AllocationRepository;
import io.gshare.core.placement.PlacementService;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Deleting a node (the guide's "노드 제거", step 4) and cordoning a GPU card, over HTTP against a real
 * PostgreSQL: a node still reported is refused, a busy one is refused naming its sessions, an idle
 * offline one goes with its cards while the billing history stays, and its hostname reported again is a
 * new node.
 */
class NodeRemovalIT extends ApiIntegrationTest {

  private static final String H100 = "NVIDIA H100 PCIe";

  @Autowired ObjectMapper json;
  @Autowired CreditLedger ledger;
  @Autowired BillingWindows billing;
  @Autowired PlacementService placement;
  @Autowired AllocationRepository allocations;
  @Autowired InventoryWriter inventoryWriter;
  @Autowired TransactionTemplate transactions;

  private final ExecutorService background = Executors.newFixedThreadPool(2);
  private InventoryFixture fixture;
  private String admin;

  @BeforeEach
  void setUp() {
    fixture = new InventoryFixture(jdbc);
    admin = adminToken();
  }

  /** A cluster whose worker stopped reporting an hour ago: every node of it is offline (stale after 10 s here). */
  private String silentCluster() {
    String cluster = fixture.cluster();
    jdbc.sql("update clusters set inventory_at = now() - interval '1 hour' where id = :c").param("c", cluster).update();
    return cluster;
  }

  private ApiResponse delete(String nodeId, String token) {
    return send("DELETE", "/api/v1/nodes/" + nodeId, null, token);
  }

  private int count(String sql, String param) {
    return jdbc.sql(sql).param("p", param).query(Integer.class).single();
  }

  private String session(String user, String state, String nodeId) {
    String id = NewTestIds.next("ses");
    jdbc.sql("""
        insert into sessions (id, user_id, state, node_id, node_hostname, gpu_model, mode, price_per_hour, image_reference,
                              workflow_id, started_at, ended_at)
        values (:id, :u, :state, :n, (select hostname from nodes where id = :n), :model, 'exclusive', 2, 'img', :w, now(),
                case when :state in ('terminated', 'failed') then now() end)
        """).param("id", id).param("u", user).param("state", state).param("n", nodeId).param("model", H100)
        .param("w", "session-" + id).update();
    return id;
  }

  private void allocation(String sessionId, String nodeId, String gpuUuid, boolean released) {
    jdbc.sql("""
        insert into allocations (id, session_id, node_id, gpu_uuid, allocated_at, released_at)
        values (:id, :s, :n, :g, now() - interval '1 hour', case when :released then now() end)
        """).param("id", NewTestIds.next("alc")).param("s", sessionId).param("n", nodeId).param("g", gpuUuid)
        .param("released", released).update();
  }

  private static String inventory(String clusterId, List<String> hostnames) {
    List<String> nodes = new ArrayList<>();
    for (String hostname : hostnames) {
      nodes.add("""
          {"hostname":"%s","ready":true,"schedulable":true,"gpu_mode":"exclusive","lossless_pause":false,
           "labels":{"gpu":"on"},
           "gpus":[{"uuid":"GPU-%s-0","index":0,"model":"%s","memory_mib":81559,"cores_percent":100,
                    "split_count":1,"healthy":true}]}""".formatted(hostname, hostname, H100));
    }
    return """
        {"cluster_id":"%s","apiserver_version":"v1.36.0","nodes":[%s]}""".formatted(clusterId, String.join(",", nodes));
  }

  private void report(String clusterId, String... hostnames) {
    ApiResponse response = post("/internal/v1/inventory", inventory(clusterId, List.of(hostnames)),
        operatorToken(clusterId));
    assertThat(response.status()).as(response.text()).isEqualTo(200);
  }

  /** A hostname of this run alone: GPU uuids derive from it, and a uuid belongs to one cluster. */
  private static String hostname(String prefix) {
    return NewTestIds.next(prefix).replace('_', '-');
  }

  private String nodeId(String clusterId, String hostname) {
    return jdbc.sql("select id from nodes where cluster_id = :c and hostname = :h").param("c", clusterId)
        .param("h", hostname).query(String.class).optional().orElse(null);
  }

  @Test
  void aNodeItsWorkerStillReportsIsRefusedWithNodeLiveWhetherReadyOrNot() throws Exception {
    String cluster = fixture.cluster();
    String node = fixture.node(cluster, "exclusive", H100, 1, 81559, 1, null);

    ApiResponse ready = delete(node, admin);
    assertThat(ready.status()).as(ready.text()).isEqualTo(409);
    JsonNode problem = json.readTree(ready.text());
    assertThat(problem.get("code").asText()).isEqualTo("node_live");
    assertThat(problem.get("type").asText()).isEqualTo("urn:gshare:problem:node_live");
    assertThat(problem.get("detail").asText()).contains("still reported").contains("register it again")
        .contains("kubectl drain").contains("kubectl delete node").contains("offline");

    jdbc.sql("update nodes set liveness = 'not_ready' where id = :n").param("n", node).update();
    ApiResponse notReady = delete(node, admin);
    assertThat(notReady.status()).isEqualTo(409);
    assertThat(json.readTree(notReady.text()).get("liveness").asText()).isEqualTo("not_ready");

    assertThat(count("select count(*) from nodes where id = :p", node)).isEqualTo(1);
    assertThat(count("select count(*) from gpu_devices where node_id = :p", node)).isEqualTo(1);
    assertThat(count("select count(*) from audit_events where action = 'node.deleted' and object_id = :p", node)).isZero();
  }

  @Test
  void anOfflineNodeWithAnUnendedSessionOrALiveAllocationIsRefusedNamingTheSessions() throws Exception {
    String cluster = silentCluster();
    String node = fixture.node(cluster, "exclusive", H100, 2, 81559, 1, null);
    String user = newUser("user");
    String running = session(user, "running", node);
    allocation(running, node, "GPU-" + node + "-0", false);

    ApiResponse refused = delete(node, admin);
    assertThat(refused.status()).as(refused.text()).isEqualTo(409);
    JsonNode problem = json.readTree(refused.text());
    assertThat(problem.get("code").asText()).isEqualTo("node_busy");
    assertThat(problem.get("detail").asText()).contains(running);
    assertThat(problem.get("sessions")).extracting(JsonNode::asText).containsExactly(running);

    // Its GPUs released but the session not ended (it is still terminating): still refused.
    jdbc.sql("update allocations set released_at = now() where session_id = :s").param("s", running).update();
    jdbc.sql("update sessions set state = 'terminating' where id = :s").param("s", running).update();
    assertThat(json.readTree(delete(node, admin).text()).get("sessions")).extracting(JsonNode::asText).containsExactly(running);

    // An allocation alone, its session not (yet) naming the node, keeps the node too.
    jdbc.sql("update sessions set state = 'terminated', ended_at = now() where id = :s").param("s", running).update();
    String placed = session(user, "pending", null);
    allocation(placed, node, "GPU-" + node + "-1", false);
    ApiResponse stillBusy = delete(node, admin);
    assertThat(stillBusy.status()).isEqualTo(409);
    assertThat(json.readTree(stillBusy.text()).get("sessions")).extracting(JsonNode::asText).containsExactly(placed);

    assertThat(count("select count(*) from nodes where id = :p", node)).isEqualTo(1);
    assertThat(count("select count(*) from gpu_devices where node_id = :p", node)).isEqualTo(2);
    assertThat(count("select count(*) from allocations where node_id = :p", node)).isEqualTo(2);
  }

  @Test
  void anIdleOfflineNodeGoesWithItsCardsAndTheBillingHistoryStays() throws Exception {
    String cluster = silentCluster();
    String pool = NewTestIds.next("npl");
    jdbc.sql("insert into node_pools (id, name) values (:id, :id)").param("id", pool).update();
    String node = fixture.node(cluster, "exclusive", H100, 2, 81559, 1, pool);
    String hostname = jdbc.sql("select hostname from nodes where id = :n").param("n", node).query(String.class).single();
    String user = newUser("user");
    ledger.grant(user, new BigDecimal("100"), NewTestIds.next("g"), "test", null);
    String ended = session(user, "running", node);
    allocation(ended, node, "GPU-" + node + "-0", true);
    ledger.charge(ended, ledger.accountOf(user), Instant.now().truncatedTo(ChronoUnit.MINUTES).minusSeconds(120),
        new BigDecimal("0.033333"));
    billing.open(ended);
    billing.close(ended);
    jdbc.sql("update sessions set state = 'terminated', ended_at = now() where id = :s").param("s", ended).update();
    // A paused session has released its GPUs and closed its billing: it does not hold the node.
    String paused = session(user, "paused", node);
    allocation(paused, node, "GPU-" + node + "-1", true);
    int windows = count("select count(*) from billing_windows where session_id = :p", ended);
    int entries = count("select count(*) from credit_ledger where session_id = :p", ended);
    assertThat(windows).isEqualTo(1);
    assertThat(entries).isGreaterThanOrEqualTo(1);
    BigDecimal balance = ledger.balance(ledger.accountOf(user));

    ApiResponse deleted = delete(node, admin);
    assertThat(deleted.status()).as(deleted.text()).isEqualTo(204);
    assertThat(deleted.text()).isEmpty();

    assertThat(count("select count(*) from nodes where id = :p", node)).isZero();
    assertThat(count("select count(*) from gpu_devices where uuid like 'GPU-' || :p || '-%'", node)).isZero();
    // The history: sessions keep the hostname, allocations the card's uuid, billing and ledger are untouched.
    assertThat(jdbc.sql("select node_id, node_hostname, state from sessions where id = :s").param("s", ended)
        .query((rs, n) -> new String[] {rs.getString(1), rs.getString(2), rs.getString(3)}).single())
        .containsExactly(null, hostname, "terminated");
    assertThat(jdbc.sql("select state from sessions where id = :s").param("s", paused).query(String.class).single())
        .isEqualTo("paused");
    assertThat(jdbc.sql("select gpu_uuid from allocations where session_id in (:a, :b) and node_id is null order by gpu_uuid")
        .param("a", ended).param("b", paused).query(String.class).list())
        .containsExactly("GPU-" + node + "-0", "GPU-" + node + "-1");
    assertThat(count("select count(*) from billing_windows where session_id = :p", ended)).isEqualTo(windows);
    assertThat(count("select count(*) from credit_ledger where session_id = :p", ended)).isEqualTo(entries);
    assertThat(ledger.balance(ledger.accountOf(user))).isEqualByComparingTo(balance);
    // The pool stays, empty.
    JsonNode emptied = json.readTree(get("/api/v1/node-pools/" + pool, admin).text());
    assertThat(emptied.get("id").asText()).isEqualTo(pool);
    assertThat(emptied.toString()).doesNotContain(node);
    // Audited with hostname and cluster; a second delete finds nothing.
    JsonNode audit = json.readTree(get("/api/v1/audit?action=node.deleted&object_id=" + node, admin).text()).get("items");
    assertThat(audit).hasSize(1);
    assertThat(audit.get(0).get("reason").asText()).contains(hostname).contains(cluster);
    assertThat(audit.get(0).get("actor").asText()).startsWith("user:");
    assertThat(jdbc.sql("select details ->> 'cluster_id' from audit_events where action = 'node.deleted' and object_id = :n")
        .param("n", node).query(String.class).single()).isEqualTo(cluster);
    ApiResponse again = delete(node, admin);
    assertThat(again.status()).isEqualTo(404);
    assertThat(json.readTree(again.text()).get("code").asText()).isEqualTo("not_found");
  }

  @Test
  void aNodeGoneFromItsClusterIsOfflineDeletableAndItsHostnameReportedAgainIsANewNode() throws Exception {
    String cluster = fixture.cluster();
    String keepHost = hostname("keep");
    String goneHost = hostname("gone");
    report(cluster, keepHost, goneHost);
    String gone = nodeId(cluster, goneHost);
    assertThat(delete(gone, admin).status()).as("still reported").isEqualTo(409);

    // kubectl delete node: the worker's next report no longer names it.
    report(cluster, keepHost);
    JsonNode visible = json.readTree(get("/api/v1/nodes?cluster_id=" + cluster, admin).text()).get("items");
    assertThat(visible).extracting(n -> n.get("hostname").asText()).containsExactly(keepHost);
    JsonNode all = json.readTree(get("/api/v1/nodes?cluster_id=" + cluster + "&include_removed=true", admin).text())
        .get("items");
    assertThat(all).hasSize(2);
    JsonNode removed = all.get(0).get("hostname").asText().equals(goneHost) ? all.get(0) : all.get(1);
    assertThat(removed.get("liveness").asText()).isEqualTo("offline");
    assertThat(removed.hasNonNull("removed_at")).isTrue();
    assertThat(json.readTree(get("/api/v1/nodes?cluster_id=" + cluster + "&include_removed=true&liveness=offline", admin)
        .text()).get("items")).extracting(n -> n.get("id").asText()).containsExactly(gone);

    ApiResponse deleted = delete(gone, admin);
    assertThat(deleted.status()).as(deleted.text()).isEqualTo(204);
    assertThat(nodeId(cluster, goneHost)).isNull();
    assertThat(count("select count(*) from gpu_devices where uuid = :p", "GPU-" + goneHost + "-0")).isZero();
    assertThat(count("select count(*) from nodes where cluster_id = :p", cluster)).isEqualTo(1);

    // The machine joins the cluster again: the next report registers it as a new node, with its card.
    report(cluster, keepHost, goneHost);
    String again = nodeId(cluster, goneHost);
    assertThat(again).isNotNull().isNotEqualTo(gone);
    JsonNode back = json.readTree(get("/api/v1/nodes?cluster_id=" + cluster, admin).text()).get("items");
    assertThat(back).extracting(n -> n.get("liveness").asText()).containsOnly("ready");
    assertThat(jdbc.sql("select node_id from gpu_devices where uuid = :u").param("u", "GPU-" + goneHost + "-0")
        .query(String.class).single()).isEqualTo(again);
  }

  @Test
  void aCordonedCardIsSkippedByPlacementSurvivesReportsAndUncordonsIdempotently() throws Exception {
    String model = "GPU Model " + NewTestIds.next("m"); // this test's own model: other tests' cards never interfere
    String cluster = fixture.cluster();
    String node = fixture.node(cluster, "exclusive", model, 2, 81559, 1, null);
    String offering = fixture.offering(model, "exclusive", 1, null, null, 2);
    String user = newUser("user");
    ledger.grant(user, new BigDecimal("1000"), NewTestIds.next("g"), "test", null);
    String first = "GPU-" + node + "-0";
    String second = "GPU-" + node + "-1";
    assertThat(placement.check(user, offering).placement().gpuUuids()).containsExactly(first);

    ApiResponse cordoned = post("/api/v1/gpus/" + first + "/cordon", null, admin);
    assertThat(cordoned.status()).as(cordoned.text()).isEqualTo(200);
    JsonNode gpu = json.readTree(cordoned.text());
    assertThat(gpu.get("uuid").asText()).isEqualTo(first);
    assertThat(gpu.get("cordoned").asBoolean()).isTrue();
    assertThat(gpu.get("node_id").asText()).isEqualTo(node);
    assertThat(gpu.get("cluster_id").asText()).isEqualTo(cluster);
    // The answer is the card as GET /api/v1/gpus shows it.
    JsonNode listed = json.readTree(get("/api/v1/gpus?node_id=" + node, admin).text()).get("items").get(0);
    assertThat(listed).isEqualTo(gpu);
    assertThat(jdbc.sql("select cordoned from gpu_devices where uuid = :u").param("u", first).query(Boolean.class).single())
        .isTrue();
    assertThat(placement.check(user, offering).placement().gpuUuids()).containsExactly(second);

    // Idempotent: cordoning again answers the same and records no second change.
    ApiResponse twice = post("/api/v1/gpus/" + first + "/cordon", null, admin);
    assertThat(twice.status()).isEqualTo(200);
    assertThat(json.readTree(twice.text())).isEqualTo(gpu);
    assertThat(count("select count(*) from audit_events where action = 'gpu.cordoned' and object_id = :p", first))
        .isEqualTo(1);

    // Both cards cordoned: nothing to place on.
    assertThat(post("/api/v1/gpus/" + second + "/cordon", null, admin).status()).isEqualTo(200);
    assertThat(refusal(user, offering)).isEqualTo(ProblemCode.UNSERVICEABLE);

    ApiResponse uncordoned = post("/api/v1/gpus/" + second + "/uncordon", null, admin);
    assertThat(uncordoned.status()).isEqualTo(200);
    assertThat(json.readTree(uncordoned.text()).get("cordoned").asBoolean()).isFalse();
    assertThat(post("/api/v1/gpus/" + second + "/uncordon", null, admin).status()).isEqualTo(200);
    assertThat(count("select count(*) from audit_events where action = 'gpu.uncordoned' and object_id = :p", second))
        .isEqualTo(1);
    assertThat(placement.check(user, offering).placement().gpuUuids()).containsExactly(second);
  }

  @Test
  void inventoryReportsLeaveTheCordonAlone() throws Exception {
    String cluster = fixture.cluster();
    String host = hostname("cordon");
    report(cluster, host);
    String uuid = "GPU-" + host + "-0";
    assertThat(post("/api/v1/gpus/" + uuid + "/cordon", null, admin).status()).isEqualTo(200);
    report(cluster, host);
    // A changed card (it was unhealthy, now healthy again) is rewritten, its cordon kept.
    jdbc.sql("update gpu_devices set healthy = false, memory_mib = 1 where uuid = :u").param("u", uuid).update();
    report(cluster, host);
    assertThat(jdbc.sql("select healthy and cordoned from gpu_devices where uuid = :u").param("u", uuid)
        .query(Boolean.class).single()).isTrue();
  }

  @Test
  void unknownNodesAndCardsAre404AndNonAdminsAre403() throws Exception {
    String user = tokenFor(newUser("user"));
    String cluster = silentCluster();
    String node = fixture.node(cluster, "exclusive", H100, 1, 81559, 1, null);
    String uuid = "GPU-" + node + "-0";

    assertThat(json.readTree(delete("nod_nosuchnode00000000", admin).text()).get("code").asText()).isEqualTo("not_found");
    assertThat(delete("nod_nosuchnode00000000", admin).status()).isEqualTo(404);
    assertThat(post("/api/v1/gpus/GPU-no-such-card/cordon", null, admin).status()).isEqualTo(404);
    assertThat(post("/api/v1/gpus/GPU-no-such-card/uncordon", null, admin).status()).isEqualTo(404);

    assertThat(delete(node, user).status()).isEqualTo(403);
    assertThat(post("/api/v1/gpus/" + uuid + "/cordon", null, user).status()).isEqualTo(403);
    assertThat(post("/api/v1/gpus/" + uuid + "/uncordon", null, user).status()).isEqualTo(403);
    assertThat(count("select count(*) from nodes where id = :p", node)).isEqualTo(1);
    assertThat(jdbc.sql("select cordoned from gpu_devices where uuid = :u").param("u", uuid).query(Boolean.class).single())
        .isFalse();
  }

  @Test
  void adminsFilterTheSessionListByNodeAndUsersMayNot() throws Exception {
    String cluster = silentCluster();
    String node = fixture.node(cluster, "exclusive", H100, 1, 81559, 1, null);
    String other = fixture.node(cluster, "exclusive", H100, 1, 81559, 1, null);
    String owner = newUser("user");
    String onNode = session(owner, "running", node);
    String ended = session(owner, "terminated", node);
    session(owner, "running", other);

    JsonNode page = json.readTree(get("/api/v1/sessions?node_id=" + node, admin).text());
    assertThat(page.get("items")).extracting(s -> s.get("id").asText()).containsExactlyInAnyOrder(onNode, ended);
    JsonNode running = json.readTree(get("/api/v1/sessions?node_id=" + node + "&state=running", admin).text());
    assertThat(running.get("items")).extracting(s -> s.get("id").asText()).containsExactly(onNode);
    assertThat(get("/api/v1/sessions?node_id=" + node, tokenFor(owner)).status()).isEqualTo(403);
  }

  /** Runs {@code work} in a transaction on another thread, holding it open until {@code commit} is released. */
  private Future<?> inOpenTransaction(Runnable work, CountDownLatch done, CountDownLatch commit, Runnable beforeCommit) {
    return background.submit(() -> transactions.executeWithoutResult(tx -> {
      work.run();
      done.countDown();
      try {
        assertThat(commit.await(30, TimeUnit.SECONDS)).isTrue();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      beforeCommit.run();
    }));
  }

  @Test
  void aDeleteRacingAReportThatBringsTheNodeBackWaitsForItAndIsRefused() throws Exception {
    String cluster = fixture.cluster();
    String host = hostname("back");
    report(cluster, host);
    String node = nodeId(cluster, host);
    // The worker went quiet: the node is offline. Its report arrives again while the admin deletes it.
    jdbc.sql("update clusters set inventory_at = now() - interval '1 hour' where id = :c").param("c", cluster).update();
    InventoryReport again = json.readValue(inventory(cluster, List.of(host)), InventoryReport.class);
    CountDownLatch reported = new CountDownLatch(1);
    CountDownLatch commit = new CountDownLatch(1);
    Future<?> report = inOpenTransaction(() -> inventoryWriter.apply(cluster, again), reported, commit, () -> {});
    assertThat(reported.await(30, TimeUnit.SECONDS)).isTrue();

    Future<ApiResponse> deleting = background.submit(() -> delete(node, admin));
    Thread.sleep(1000);
    assertThat(deleting.isDone()).as("the delete waits for the report in flight").isFalse();
    commit.countDown();
    report.get(30, TimeUnit.SECONDS);
    ApiResponse refused = deleting.get(30, TimeUnit.SECONDS);
    assertThat(refused.status()).as(refused.text()).isEqualTo(409);
    assertThat(json.readTree(refused.text()).get("code").asText()).isEqualTo("node_live");
    assertThat(nodeId(cluster, host)).isEqualTo(node);
  }

  @Test
  void aDeleteRacingAPlacementOnTheNodeWaitsForItAndIsRefusedNamingTheSession() throws Exception {
    String model = "GPU Model " + NewTestIds.next("m");
    String cluster = silentCluster();
    String node = fixture.node(cluster, "exclusive", model, 1, 81559, 1, null);
    String user = newUser("user");
    String session = fixture.session(user, model, "exclusive");
    CountDownLatch locked = new CountDownLatch(1);
    CountDownLatch commit = new CountDownLatch(1);
    // A placement that has taken its model's lock and chosen the card, about to write the allocation.
    Future<?> placing = inOpenTransaction(() -> allocations.lockModel(model), locked, commit,
        () -> allocation(session, node, "GPU-" + node + "-0", false));
    assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();

    Future<ApiResponse> deleting = background.submit(() -> delete(node, admin));
    Thread.sleep(1000);
    assertThat(deleting.isDone()).as("the delete waits for the placement in flight").isFalse();
    commit.countDown();
    placing.get(30, TimeUnit.SECONDS);
    ApiResponse refused = deleting.get(30, TimeUnit.SECONDS);
    assertThat(refused.status()).as(refused.text()).isEqualTo(409);
    assertThat(json.readTree(refused.text()).get("sessions")).extracting(JsonNode::asText).containsExactly(session);
    assertThat(jdbc.sql("select node_id from allocations where session_id = :s").param("s", session).query(String.class)
        .single()).isEqualTo(node);
  }

  @AfterEach
  void stopBackground() {
    background.shutdownNow();
  }

  private ProblemCode refusal(String user, String offering) {
    try {
      placement.check(user, offering);
      return null;
    } catch (GshareException e) {
      return e.code();
    }
  }
}
