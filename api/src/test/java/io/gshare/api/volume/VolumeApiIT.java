package io.gshare.api.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.InventoryFixture;
import io.gshare.api.support.NewTestIds;
import io.gshare.client.ApiResponse;
import io.gshare.core.credit.CreditLedger;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.placement.PlacementService;
import io.gshare.workflows.common.SearchAttributes;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The volume API on a real PostgreSQL and Temporal: storage pools and their capacity sources, volumes
 * within quotas and their pool's free capacity, delete and restore through the reclaim workflow's seam,
 * expansion, and placement that keeps a volume's sessions where its pool's StorageClass exists. Rows the
 * volume sync would write (storage_pool_cluster_status, claims) are written directly.
 */
class VolumeApiIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;
  @Autowired WorkflowClient workflows;
  @Autowired PlacementService placement;
  @Autowired CreditLedger ledger;

  private InventoryFixture fixture;
  private String admin;
  private final List<String> started = new ArrayList<>();

  @BeforeEach
  void setUp() {
    fixture = new InventoryFixture(jdbc);
    admin = adminToken();
  }

  /** A reclaim a test started waits out a 24 h grace: every execution a test started is ended here. */
  @AfterEach
  void terminateReclaims() {
    for (String volume : started) {
      try {
        workflows.newUntypedWorkflowStub(WorkflowIds.volumeReclaim(volume)).terminate("VolumeApiIT done");
      } catch (RuntimeException alreadyClosed) {
        // completed on its own (a restore), or terminated by a later start
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // helpers

  private JsonNode body(ApiResponse response) {
    try {
      return json.readTree(response.text());
    } catch (Exception e) {
      throw new IllegalStateException(response.text(), e);
    }
  }

  private JsonNode ok(ApiResponse response, int status) {
    assertThat(response.status()).as(response.text()).isEqualTo(status);
    return body(response);
  }

  private JsonNode problem(ApiResponse response, int status, String code) {
    assertThat(response.status()).as(response.text()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
    JsonNode problem = body(response);
    assertThat(problem.path("code").asText()).as(response.text()).isEqualTo(code);
    return problem;
  }

  private int count(String sql, String param) {
    return jdbc.sql(sql).param("p", param).query(Integer.class).single();
  }

  private String manualPool(String sourceCluster, int gb) {
    return ok(post("/api/v1/storage/pools", """
        {"name":"%s","cluster_id":"%s","storage_class":"gshare-nfs","capacity_source":"manual","manual_capacity_gb":%d}
        """.formatted(NewTestIds.next("pool"), sourceCluster, gb), admin), 201).get("id").asText();
  }

  private static String volumeName() {
    return NewTestIds.next("vol").replace('_', '-');
  }

  private ApiResponse createVolume(String token, String name, int sizeGb, String poolId) {
    return post("/api/v1/volumes", "{\"name\":\"%s\",\"size_gb\":%d,\"pool_id\":\"%s\"}".formatted(name, sizeGb, poolId),
        token);
  }

  private String newVolume(String token, int sizeGb, String poolId) {
    return ok(createVolume(token, volumeName(), sizeGb, poolId), 201).get("id").asText();
  }

  private void report(String poolId, String clusterId, boolean classPresent, Long csiBytes, Long nodeDiskBytes) {
    jdbc.sql("""
        insert into storage_pool_cluster_status (pool_id, cluster_id, storage_class_present, allows_expansion,
                                                 csi_capacity_bytes, node_disk_bytes)
        values (:p, :c, :present, true, :csi, :disk)
        on conflict (pool_id, cluster_id) do update set storage_class_present = excluded.storage_class_present,
            csi_capacity_bytes = excluded.csi_capacity_bytes, node_disk_bytes = excluded.node_disk_bytes, reported_at = now()
        """).param("p", poolId).param("c", clusterId).param("present", classPresent).param("csi", csiBytes)
        .param("disk", nodeDiskBytes).update();
  }

  private String team() {
    return ok(post("/api/v1/teams", "{\"name\":\"" + NewTestIds.next("storage-team") + "\"}", admin), 201).get("id").asText();
  }

  private String userIn(String teamId) {
    String user = newUser("user");
    jdbc.sql("update users set team_id = :t where id = :u").param("t", teamId).param("u", user).update();
    return user;
  }

  private static JsonNode cluster(JsonNode pool, String clusterId) {
    for (JsonNode c : pool.get("clusters")) {
      if (c.get("cluster_id").asText().equals(clusterId)) {
        return c;
      }
    }
    throw new AssertionError("cluster " + clusterId + " not in " + pool);
  }

  private static final long GIB = 1L << 30;

  // ---------------------------------------------------------------------------------------------------------------
  // storage pools

  @Test
  void poolsTakeTheirCapacityFromTheirSourceAndShowEachClustersReadiness() {
    String source = fixture.cluster();
    String other = fixture.cluster();

    JsonNode manual = ok(post("/api/v1/storage/pools", """
        {"name":"%s","cluster_id":"%s","storage_class":"gshare-nfs","scope":"selected","cluster_ids":["%s","%s"],
         "capacity_source":"manual","manual_capacity_gb":500}
        """.formatted(NewTestIds.next("manual"), source, source, other), admin), 201);
    String manualId = manual.get("id").asText();
    assertThat(manual.get("scope").asText()).isEqualTo("selected");
    assertThat(manual.get("cluster_ids")).extracting(JsonNode::asText).containsExactlyInAnyOrder(source, other);
    assertThat(manual.get("total_gb").asLong()).isEqualTo(500);
    assertThat(manual.get("allocated_gb").asLong()).isZero();
    assertThat(manual.get("free_gb").asLong()).isEqualTo(500);
    assertThat(manual.path("is_default").isBoolean()).as(manual.toString()).isTrue();
    assertThat(manual.get("is_default").asBoolean()).isFalse();
    assertThat(manual.get("clusters")).hasSize(2);
    assertThat(cluster(manual, source).get("status").asText()).isEqualTo("unknown");

    // The volume sync reports the class present on the source, missing on the other cluster.
    report(manualId, source, true, null, null);
    report(manualId, other, false, null, null);
    JsonNode reported = ok(get("/api/v1/storage/pools/" + manualId, admin), 200);
    assertThat(cluster(reported, source).get("status").asText()).isEqualTo("ready");
    assertThat(cluster(reported, other).get("status").asText()).isEqualTo("not_ready");
    assertThat(reported.get("total_gb").asLong()).isEqualTo(500); // manual: the reports' bytes do not count

    // csi: the CSIStorageCapacity its source cluster reports; nothing before the first report.
    JsonNode csi = ok(post("/api/v1/storage/pools", """
        {"name":"%s","cluster_id":"%s","storage_class":"gshare-zfs","capacity_source":"csi"}
        """.formatted(NewTestIds.next("csi"), source), admin), 201);
    String csiId = csi.get("id").asText();
    assertThat(csi.get("scope").asText()).isEqualTo("all");
    assertThat(csi.has("total_gb")).isFalse();
    assertThat(csi.has("free_gb")).isFalse();
    report(csiId, other, true, 999 * GIB, null);  // not the source: not its capacity
    assertThat(ok(get("/api/v1/storage/pools/" + csiId, admin), 200).has("total_gb")).isFalse();
    report(csiId, source, true, 200 * GIB + 12345, 5000 * GIB);
    assertThat(ok(get("/api/v1/storage/pools/" + csiId, admin), 200).get("total_gb").asLong()).isEqualTo(200);

    // node_disk: the storage node's disk its source cluster reports.
    String diskId = ok(post("/api/v1/storage/pools", """
        {"name":"%s","cluster_id":"%s","storage_class":"local-path","capacity_source":"node_disk"}
        """.formatted(NewTestIds.next("disk"), source), admin), 201).get("id").asText();
    report(diskId, source, true, 200 * GIB, 1024 * GIB + 7);
    JsonNode disk = ok(get("/api/v1/storage/pools/" + diskId, admin), 200);
    assertThat(disk.get("total_gb").asLong()).isEqualTo(1024);
    assertThat(disk.get("free_gb").asLong()).isEqualTo(1024);

    JsonNode list = ok(get("/api/v1/storage/pools", admin), 200);
    assertThat(list.get("items")).extracting(p -> p.get("id").asText()).contains(manualId, csiId, diskId);

    // PATCH: a new manual capacity, then csi (its manual capacity goes with it).
    assertThat(ok(send("PATCH", "/api/v1/storage/pools/" + manualId, "{\"manual_capacity_gb\":800}", admin), 200)
        .get("total_gb").asLong()).isEqualTo(800);
    report(manualId, source, true, 300 * GIB, null);
    JsonNode toCsi = ok(send("PATCH", "/api/v1/storage/pools/" + manualId, "{\"capacity_source\":\"csi\"}", admin), 200);
    assertThat(toCsi.get("total_gb").asLong()).isEqualTo(300);
    assertThat(toCsi.has("manual_capacity_gb")).isFalse();
    assertThat(toCsi.get("scope").asText()).isEqualTo("selected");
    problem(send("PATCH", "/api/v1/storage/pools/" + manualId, "{\"manual_capacity_gb\":10}", admin), 422,
        "validation_failed");

    // Admins only, and audited.
    String user = tokenFor(newUser("user"));
    problem(get("/api/v1/storage/pools", user), 403, "forbidden");
    problem(post("/api/v1/storage/pools", "{}", user), 403, "forbidden");
    assertThat(count("select count(*) from audit_events where action = 'storage_pool.created' and object_id = :p", csiId))
        .isEqualTo(1);
    assertThat(count("select count(*) from audit_events where action = 'storage_pool.updated' and object_id = :p", manualId))
        .isEqualTo(2);

    // Deleted while empty; gone after.
    assertThat(send("DELETE", "/api/v1/storage/pools/" + diskId, null, admin).status()).isEqualTo(204);
    problem(get("/api/v1/storage/pools/" + diskId, admin), 404, "not_found");
  }

  @Test
  void badPoolsAre422AndWriteNothing() {
    String source = fixture.cluster();
    String detached = fixture.cluster();
    jdbc.sql("update clusters set status = 'detached' where id = :c").param("c", detached).update();
    int before = jdbc.sql("select count(*) from storage_pools").query(Integer.class).single();
    int scoped = jdbc.sql("select count(*) from storage_pool_clusters").query(Integer.class).single();
    String name = NewTestIds.next("bad");

    for (String bad : new String[] {
        "{\"name\":\"%s\",\"storage_class\":\"gshare-nfs\"}".formatted(name),
        "{\"name\":\"%s\",\"cluster_id\":\"clu_nosuch\",\"storage_class\":\"gshare-nfs\"}".formatted(name),
        "{\"name\":\"%s\",\"cluster_id\":\"%s\",\"storage_class\":\"gshare-nfs\"}".formatted(name, detached),
        "{\"name\":\"%s\",\"cluster_id\":\"%s\",\"storage_class\":\"Gshare_NFS\"}".formatted(name, source),
        "{\"name\":\"%s\",\"cluster_id\":\"%s\"}".formatted(name, source),
        "{\"name\":\"\",\"cluster_id\":\"%s\",\"storage_class\":\"gshare-nfs\"}".formatted(source),
        "{\"name\":\"%s\",\"cluster_id\":\"%s\",\"storage_class\":\"gshare-nfs\"}".formatted("x".repeat(101), source),
        "{\"name\":\"%s\",\"cluster_id\":\"%s\",\"storage_class\":\"gshare-nfs\",\"scope\":\"selected\"}".formatted(name, source),
        "{\"name\":\"%s\",\"cluster_id\":\"%s\",\"storage_class\":\"gshare-nfs\",\"scope\":\"selected\",\"cluster_ids\":[\"%s\"]}"
            .formatted(name, source, detached),
        "{\"name\":\"%s\",\"cluster_id\":\"%s\",\"storage_class\":\"gshare-nfs\",\"scope\":\"all\",\"cluster_ids\":[\"%s\"]}"
            .formatted(name, source, source),
        "{\"name\":\"%s\",\"cluster_id\":\"%s\",\"storage_class\":\"gshare-nfs\",\"scope\":\"some\"}".formatted(name, source),
        "{\"name\":\"%s\",\"cluster_id\":\"%s\",\"storage_class\":\"gshare-nfs\",\"capacity_source\":\"manual\"}"
            .formatted(name, source),
        "{\"name\":\"%s\",\"cluster_id\":\"%s\",\"storage_class\":\"gshare-nfs\",\"capacity_source\":\"manual\",\"manual_capacity_gb\":0}"
            .formatted(name, source),
        "{\"name\":\"%s\",\"cluster_id\":\"%s\",\"storage_class\":\"gshare-nfs\",\"capacity_source\":\"csi\",\"manual_capacity_gb\":5}"
            .formatted(name, source),
        "{\"name\":\"%s\",\"cluster_id\":\"%s\",\"storage_class\":\"gshare-nfs\",\"capacity_source\":\"zfs\"}".formatted(name, source),
    }) {
      problem(post("/api/v1/storage/pools", bad, admin), 422, "validation_failed");
    }
    problem(post("/api/v1/storage/pools", "{\"name\":\"%s\",\"cluster_id\":\"%s\",\"storage_class\":\"gshare-nfs\",\"colour\":1}"
        .formatted(name, source), admin), 400, "bad_request");
    assertThat(jdbc.sql("select count(*) from storage_pools").query(Integer.class).single()).isEqualTo(before);
    assertThat(jdbc.sql("select count(*) from storage_pool_clusters").query(Integer.class).single()).isEqualTo(scoped);

    String body = "{\"name\":\"%s\",\"cluster_id\":\"%s\",\"storage_class\":\"gshare-nfs\"}".formatted(name, source);
    ok(post("/api/v1/storage/pools", body, admin), 201);
    problem(post("/api/v1/storage/pools", body, admin), 409, "conflict");
    problem(send("PATCH", "/api/v1/storage/pools/stp_nosuch", "{\"name\":\"x\"}", admin), 404, "not_found");
    problem(send("DELETE", "/api/v1/storage/pools/stp_nosuch", null, admin), 404, "not_found");
  }

  // ---------------------------------------------------------------------------------------------------------------
  // volumes: create, capacity, bad input

  @Test
  void volumesAreCreatedWithinTheirPoolsFreeCapacityAndBadInputWritesNothing() {
    String source = fixture.cluster();
    String pool = manualPool(source, 100);
    String aliceId = newUser("user");
    String alice = tokenFor(aliceId);
    String bob = tokenFor(newUser("user"));

    String name = volumeName();
    JsonNode created = ok(createVolume(alice, name, 60, pool), 201);
    assertThat(created.get("status").asText()).isEqualTo("available");
    assertThat(created.get("pool_id").asText()).isEqualTo(pool);
    assertThat(created.get("owner_id").asText()).isEqualTo(aliceId);
    assertThat(created.get("size_gb").asInt()).isEqualTo(60);
    assertThat(created.get("claims")).isEmpty();

    JsonNode refused = problem(createVolume(bob, volumeName(), 50, pool), 409, "insufficient_storage");
    assertThat(refused.get("free_gb").asLong()).isEqualTo(40);
    assertThat(refused.get("requested_gb").asLong()).isEqualTo(50);
    assertThat(refused.get("detail").asText()).contains("40 GiB free").contains("50 GiB");
    ok(createVolume(bob, name, 40, pool), 201);  // the same name is bob's to use; exactly the free 40 GiB
    JsonNode full = ok(get("/api/v1/storage/pools/" + pool, admin), 200);
    assertThat(full.get("allocated_gb").asLong()).isEqualTo(100);
    assertThat(full.get("free_gb").asLong()).isZero();

    // Bad input: 422 (400 for a body that is not the endpoint's), nothing written.
    String big = manualPool(source, 1_000_000);
    int before = count("select count(*) from volumes where owner_id = :p", aliceId);
    for (String bad : new String[] {
        "{\"name\":\"ok-name\",\"size_gb\":0,\"pool_id\":\"%s\"}".formatted(big),
        "{\"name\":\"ok-name\",\"size_gb\":-1,\"pool_id\":\"%s\"}".formatted(big),
        "{\"name\":\"ok-name\",\"size_gb\":100001,\"pool_id\":\"%s\"}".formatted(big),
        "{\"name\":\"ok-name\",\"pool_id\":\"%s\"}".formatted(big),
        "{\"name\":\"Bad_Name\",\"size_gb\":1,\"pool_id\":\"%s\"}".formatted(big),
        "{\"name\":\"-dash\",\"size_gb\":1,\"pool_id\":\"%s\"}".formatted(big),
        "{\"name\":\"%s\",\"size_gb\":1,\"pool_id\":\"%s\"}".formatted("a".repeat(64), big),
        "{\"size_gb\":1,\"pool_id\":\"%s\"}".formatted(big),
        "{\"name\":\"ok-name\",\"size_gb\":1,\"pool_id\":\"stp_nosuch\"}",
    }) {
      problem(post("/api/v1/volumes", bad, alice), 422, "validation_failed");
    }
    problem(post("/api/v1/volumes", "{\"name\":\"ok-name\",\"size_gb\":1,\"pool_id\":\"%s\",\"owner_id\":\"x\"}".formatted(big),
        alice), 400, "bad_request");
    problem(createVolume(alice, name, 1, big), 409, "conflict");  // alice's live volume has that name
    assertThat(count("select count(*) from volumes where owner_id = :p", aliceId)).isEqualTo(before);

    // A pool whose csi capacity is not reported yet refuses, saying so.
    String csi = ok(post("/api/v1/storage/pools", """
        {"name":"%s","cluster_id":"%s","storage_class":"gshare-nfs"}""".formatted(NewTestIds.next("unreported"), source),
        admin), 201).get("id").asText();
    JsonNode unknown = problem(createVolume(alice, volumeName(), 1, csi), 409, "insufficient_storage");
    assertThat(unknown.get("detail").asText()).contains("not been reported");
    report(csi, source, true, 10 * GIB, null);
    ok(createVolume(alice, volumeName(), 10, csi), 201);

    // Without pool_id: the default pool.
    assertThat(ok(send("PATCH", "/api/v1/storage/pools/" + big, "{\"is_default\":true}", admin), 200).get("is_default")
        .asBoolean()).isTrue();
    JsonNode implicit = ok(post("/api/v1/volumes", "{\"name\":\"%s\",\"size_gb\":5}".formatted(volumeName()), alice), 201);
    assertThat(implicit.get("pool_id").asText()).isEqualTo(big);
    ok(send("PATCH", "/api/v1/storage/pools/" + big, "{\"is_default\":false}", admin), 200);

    // A pool holding volumes is not deleted; nor is its class changed under them.
    JsonNode busy = problem(send("DELETE", "/api/v1/storage/pools/" + pool, null, admin), 409, "conflict");
    assertThat(busy.get("volumes").asInt()).isEqualTo(2);
    problem(send("PATCH", "/api/v1/storage/pools/" + pool, "{\"storage_class\":\"other-class\"}", admin), 409, "conflict");
  }

  @Test
  void concurrentCreatesNeverOvershootThePoolOrTheUsersQuota() throws Exception {
    String pool = manualPool(fixture.cluster(), 100);
    List<String> tokens = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      tokens.add(tokenFor(newUser("user")));
    }
    ExecutorService threads = Executors.newFixedThreadPool(12);
    try {
      List<Future<Integer>> answers = new ArrayList<>();
      for (String token : tokens) {
        answers.add(threads.submit(() -> createVolume(token, volumeName(), 20, pool).status()));
      }
      List<Integer> statuses = new ArrayList<>();
      for (Future<Integer> answer : answers) {
        statuses.add(answer.get());
      }
      assertThat(statuses).filteredOn(s -> s == 201).hasSize(5);
      assertThat(statuses).filteredOn(s -> s == 409).hasSize(7);
      assertThat(count("select coalesce(sum(size_gb), 0) from volumes where storage_pool_id = :p", pool)).isEqualTo(100);

      // One user racing against their own count quota.
      String team = team();
      ok(send("PUT", "/api/v1/teams/" + team + "/policy", "{\"volume_quota_count\":3}", admin), 200);
      String carol = userIn(team);
      String carolToken = tokenFor(carol);
      String big = manualPool(fixture.cluster(), 10_000);
      List<Future<Integer>> mine = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        mine.add(threads.submit(() -> createVolume(carolToken, volumeName(), 1, big).status()));
      }
      int created = 0;
      for (Future<Integer> answer : mine) {
        created += answer.get() == 201 ? 1 : 0;
      }
      assertThat(created).isEqualTo(3);
      assertThat(count("select count(*) from volumes where owner_id = :p", carol)).isEqualTo(3);
    } finally {
      threads.shutdownNow();
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // quotas

  @Test
  void quotasRefuseBeyondTheUsersAndTheTeamsLimitsSayingTheLimitAndTheUse() {
    String team = team();
    JsonNode policy = ok(send("PUT", "/api/v1/teams/" + team + "/policy", """
        {"volume_quota_gb":50,"volume_quota_count":2,"team_volume_quota_gb":80,"team_volume_quota_count":3}
        """, admin), 200);
    assertThat(policy.get("volume_quota_gb").asInt()).isEqualTo(50);
    assertThat(policy.get("team_volume_quota_count").asInt()).isEqualTo(3);
    JsonNode read = ok(get("/api/v1/teams/" + team + "/policy", admin), 200);
    assertThat(read.get("volume_quota_count").asInt()).isEqualTo(2);
    assertThat(read.get("team_volume_quota_gb").asInt()).isEqualTo(80);
    problem(send("PUT", "/api/v1/teams/" + team + "/policy", "{\"volume_quota_gb\":-1}", admin), 422, "validation_failed");

    String pool = manualPool(fixture.cluster(), 10_000);
    String alice = userIn(team);
    String aliceToken = tokenFor(alice);
    String bob = userIn(team);
    String bobToken = tokenFor(bob);

    ok(createVolume(aliceToken, volumeName(), 30, pool), 201);
    JsonNode userGb = problem(createVolume(aliceToken, volumeName(), 30, pool), 409, "quota_exceeded");
    assertThat(userGb.get("quota").asText()).isEqualTo("volume_quota_gb");
    assertThat(userGb.get("limit").asInt()).isEqualTo(50);
    assertThat(userGb.get("used").asInt()).isEqualTo(30);
    assertThat(userGb.get("detail").asText()).contains("50 GiB").contains("30 GiB");
    ok(createVolume(aliceToken, volumeName(), 20, pool), 201);
    JsonNode userCount = problem(createVolume(aliceToken, volumeName(), 1, pool), 409, "quota_exceeded");
    assertThat(userCount.get("quota").asText()).isEqualTo("volume_quota_count");
    assertThat(userCount.get("limit").asInt()).isEqualTo(2);

    // The team holds 50 GiB in 2 volumes: bob may add 30 GiB and 1 volume.
    JsonNode teamGb = problem(createVolume(bobToken, volumeName(), 31, pool), 409, "quota_exceeded");
    assertThat(teamGb.get("quota").asText()).isEqualTo("team_volume_quota_gb");
    assertThat(teamGb.get("used").asInt()).isEqualTo(50);
    ok(createVolume(bobToken, volumeName(), 30, pool), 201);
    JsonNode teamCount = problem(createVolume(bobToken, volumeName(), 1, pool), 409, "quota_exceeded");
    assertThat(teamCount.get("quota").asText()).isEqualTo("team_volume_quota_count");
    assertThat(count("select count(*) from volumes where owner_id = :p", alice)).isEqualTo(2);
    assertThat(count("select count(*) from volumes where owner_id = :p", bob)).isEqualTo(1);

    // A deleted volume frees its quota; restoring it counts it again.
    String first = jdbc.sql("select id from volumes where owner_id = :u and size_gb = 30").param("u", alice)
        .query(String.class).single();
    ok(send("DELETE", "/api/v1/volumes/" + first, null, aliceToken), 202);
    started.add(first);
    ok(createVolume(aliceToken, volumeName(), 10, pool), 201);
    problem(post("/api/v1/volumes/" + first + "/restore", null, aliceToken), 409, "quota_exceeded");
  }

  // ---------------------------------------------------------------------------------------------------------------
  // list and get

  @Test
  void listAndGetShowOnlyTheCallersVolumesWithClaimsSessionsAndFilters() {
    String source = fixture.cluster();
    String mounting = fixture.cluster();
    String pool = manualPool(source, 1000);
    String otherPool = manualPool(source, 1000);
    String aliceId = newUser("user");
    String alice = tokenFor(aliceId);
    String bobId = newUser("user");
    String bob = tokenFor(bobId);
    String mine = newVolume(alice, 10, pool);
    String mineElsewhere = newVolume(alice, 10, otherPool);
    String bobs = newVolume(bob, 10, pool);

    // What a session and the volume sync leave: a claim on the cluster that mounted it, its usage.
    String session = fixture.session(aliceId, "Volume GPU", "exclusive");
    jdbc.sql("update sessions set volume_id = :v, cluster_id = :c, state = 'terminated', ended_at = now() where id = :s")
        .param("v", mine).param("c", mounting).param("s", session).update();
    jdbc.sql("""
        insert into volume_claims (volume_id, cluster_id, pvc_name, phase, capacity_bytes, requested_bytes, used_bytes, synced_at)
        values (:v, :c, 'gshare-vol', 'Bound', :cap, :cap, :used, now())
        """).param("v", mine).param("c", mounting).param("cap", 10 * GIB).param("used", 3 * GIB).update();
    jdbc.sql("update volumes set used_bytes = :used where id = :v").param("used", 3 * GIB).param("v", mine).update();

    JsonNode detail = ok(get("/api/v1/volumes/" + mine, alice), 200);
    assertThat(detail.get("used_bytes").asLong()).isEqualTo(3 * GIB);
    assertThat(detail.get("claims")).hasSize(1);
    JsonNode claim = detail.get("claims").get(0);
    assertThat(claim.get("cluster_id").asText()).isEqualTo(mounting);
    assertThat(claim.get("phase").asText()).isEqualTo("Bound");
    assertThat(claim.get("capacity_bytes").asLong()).isEqualTo(10 * GIB);
    assertThat(claim.get("used_bytes").asLong()).isEqualTo(3 * GIB);
    assertThat(detail.get("sessions")).hasSize(1);
    assertThat(detail.get("sessions").get(0).get("id").asText()).isEqualTo(session);
    assertThat(detail.get("sessions").get(0).get("state").asText()).isEqualTo("terminated");
    assertThat(detail.has("expansion")).isFalse();

    assertThat(ids(get("/api/v1/volumes", alice))).contains(mine, mineElsewhere).doesNotContain(bobs);
    assertThat(ids(get("/api/v1/volumes?pool_id=" + pool, alice))).containsExactly(mine);
    assertThat(ids(get("/api/v1/volumes?cluster_id=" + mounting, alice))).containsExactly(mine);
    problem(get("/api/v1/volumes/" + bobs, alice), 404, "not_found");
    problem(send("DELETE", "/api/v1/volumes/" + bobs, null, alice), 404, "not_found");
    problem(post("/api/v1/volumes/" + bobs + "/expansion", "{\"size_gb\":20}", alice), 404, "not_found");
    problem(get("/api/v1/volumes?user_id=" + bobId, alice), 403, "forbidden");
    problem(get("/api/v1/volumes/vol_nosuch", alice), 404, "not_found");

    assertThat(ids(get("/api/v1/volumes?user_id=" + bobId, admin))).containsExactly(bobs);
    assertThat(ids(get("/api/v1/volumes?pool_id=" + pool, admin))).containsExactlyInAnyOrder(mine, bobs);
    assertThat(ids(get("/api/v1/volumes?cluster_id=" + mounting, admin))).containsExactly(mine);
    assertThat(ok(get("/api/v1/volumes/" + bobs, admin), 200).get("owner_id").asText()).isEqualTo(bobId);
  }

  private List<String> ids(ApiResponse response) {
    List<String> ids = new ArrayList<>();
    ok(response, 200).get("items").forEach(v -> ids.add(v.get("id").asText()));
    return ids;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // delete, reclaim, restore

  @Test
  void deleteMarksDeletingAndStartsTheReclaimWhichARestoreSignals() {
    String pool = manualPool(fixture.cluster(), 1000);
    String ownerId = newUser("user");
    String owner = tokenFor(ownerId);
    String name = volumeName();
    String volume = ok(createVolume(owner, name, 10, pool), 201).get("id").asText();

    Instant before = Instant.now();
    JsonNode deleted = ok(send("DELETE", "/api/v1/volumes/" + volume, null, owner), 202);
    started.add(volume);
    assertThat(deleted.get("status").asText()).isEqualTo("deleting");
    Instant reclaimAfter = Instant.parse(deleted.get("reclaim_after").asText());
    assertThat(reclaimAfter).isBetween(before.plus(Duration.ofHours(24)).minusSeconds(60),
        Instant.now().plus(Duration.ofHours(24)).plusSeconds(60));
    assertThat(deleted.hasNonNull("deleted_at")).isTrue();
    assertThat(count("select count(*) from audit_events where action = 'volume.deleted' and object_id = :p", volume))
        .isEqualTo(1);

    // The reclaim workflow: its id, type, queue, search attribute and input are the seam's.
    String workflowId = WorkflowIds.volumeReclaim(volume);
    assertThat(workflowId).isEqualTo("volume-reclaim-" + volume);
    WorkflowExecutionDescription reclaim = workflows.newUntypedWorkflowStub(workflowId).describe();
    assertThat(reclaim.getWorkflowType()).isEqualTo("VolumeReclaim");
    assertThat(reclaim.getTaskQueue()).isEqualTo("gshare-control");
    assertThat(reclaim.getStatus()).isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
    assertThat(reclaim.getTypedSearchAttributes().get(SearchAttributes.VOLUME_ID)).isEqualTo(volume);
    HistoryEvent start = workflows.fetchHistory(workflowId).getEvents().get(0);
    String input = start.getWorkflowExecutionStartedEventAttributes().getInput().getPayloads(0).getData().toStringUtf8();
    assertThat(input).contains("\"volumeId\":\"" + volume + "\"").contains("\"graceSeconds\":86400");

    // Deleting, still shown and listed (it can be restored); a second delete answers the same.
    assertThat(ids(get("/api/v1/volumes", owner))).contains(volume);
    JsonNode again = ok(send("DELETE", "/api/v1/volumes/" + volume, null, owner), 202);
    assertThat(again.get("reclaim_after").asText()).isEqualTo(deleted.get("reclaim_after").asText());
    String runId = reclaim.getExecution().getRunId();
    assertThat(workflows.newUntypedWorkflowStub(workflowId).describe().getExecution().getRunId()).isEqualTo(runId);
    // Not mountable while deleting.
    problem(post("/api/v1/volumes/" + volume + "/expansion", "{\"size_gb\":20}", owner), 409, "conflict");

    // Its name is free: a new volume takes it, and then the restore is refused until that one goes.
    String sameName = ok(createVolume(owner, name, 10, pool), 201).get("id").asText();
    problem(post("/api/v1/volumes/" + volume + "/restore", null, owner), 409, "conflict");
    ok(send("DELETE", "/api/v1/volumes/" + sameName, null, owner), 202);
    started.add(sameName);

    JsonNode restored = ok(post("/api/v1/volumes/" + volume + "/restore", null, owner), 200);
    assertThat(restored.get("status").asText()).isEqualTo("available");
    assertThat(restored.has("deleted_at")).isFalse();
    assertThat(restored.has("reclaim_after")).isFalse();
    // The server records a signal once the workflow task in flight is done; the reclaim then ends, restored.
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(workflows.fetchHistory(workflowId).getEvents()).anySatisfy(e -> {
          assertThat(e.getEventType()).isEqualTo(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
          assertThat(e.getWorkflowExecutionSignaledEventAttributes().getSignalName()).isEqualTo("restore");
        }));
    assertThat(count("select count(*) from audit_events where action = 'volume.restored' and object_id = :p", volume))
        .isEqualTo(1);
    problem(post("/api/v1/volumes/" + volume + "/restore", null, owner), 409, "conflict");  // not deleting

    // Deleted again: a new reclaim run replaces the old one.
    ok(send("DELETE", "/api/v1/volumes/" + volume, null, admin), 202);
    assertThat(workflows.newUntypedWorkflowStub(workflowId).describe().getExecution().getRunId()).isNotEqualTo(runId);

    // After the grace, or once reclaimed, no restore.
    jdbc.sql("update volumes set reclaim_after = now() - interval '1 second' where id = :v").param("v", volume).update();
    JsonNode late = problem(post("/api/v1/volumes/" + volume + "/restore", null, owner), 409, "conflict");
    assertThat(late.get("detail").asText()).contains("grace period ended");
    jdbc.sql("update volumes set status = 'reclaimed', reclaimed_at = now() where id = :v").param("v", volume).update();
    problem(post("/api/v1/volumes/" + volume + "/restore", null, owner), 409, "conflict");
    problem(send("DELETE", "/api/v1/volumes/" + volume, null, owner), 409, "conflict");
    assertThat(ok(get("/api/v1/volumes/" + volume, owner), 200).get("status").asText()).isEqualTo("reclaimed");
    assertThat(ids(get("/api/v1/volumes", owner))).doesNotContain(volume);
    // Reclaimed volumes leave their pool deletable; the row stays, without the pool.
    jdbc.sql("update volumes set status = 'reclaimed' where id = :v").param("v", sameName).update();
    assertThat(send("DELETE", "/api/v1/storage/pools/" + pool, null, admin).status()).isEqualTo(204);
    assertThat(ok(get("/api/v1/volumes/" + volume, owner), 200).has("pool_id")).isFalse();
  }

  @Test
  void aVolumeHeldByASessionNotEndedIsNotDeleted() {
    String pool = manualPool(fixture.cluster(), 1000);
    String ownerId = newUser("user");
    String owner = tokenFor(ownerId);
    String volume = newVolume(owner, 10, pool);
    String session = fixture.session(ownerId, "Volume GPU", "exclusive");
    for (String state : new String[] {"running", "paused"}) {
      jdbc.sql("update sessions set volume_id = :v, state = :state where id = :s").param("v", volume).param("state", state)
          .param("s", session).update();
      JsonNode inUse = problem(send("DELETE", "/api/v1/volumes/" + volume, null, owner), 409, "volume_in_use");
      assertThat(inUse.get("session_id").asText()).isEqualTo(session);
    }
    assertThat(ok(get("/api/v1/volumes/" + volume, owner), 200).get("status").asText()).isEqualTo("available");
    assertThatThrownBy(() -> workflows.newUntypedWorkflowStub(WorkflowIds.volumeReclaim(volume)).describe())
        .isInstanceOf(RuntimeException.class);

    jdbc.sql("update sessions set state = 'terminated', ended_at = now() where id = :s").param("s", session).update();
    ok(send("DELETE", "/api/v1/volumes/" + volume, null, owner), 202);
    started.add(volume);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // expansion

  @Test
  void anExpansionIsRequestedThenApprovedWithCapacityCheckedAgainOrRejected() {
    String pool = manualPool(fixture.cluster(), 100);
    String ownerId = newUser("user");
    String owner = tokenFor(ownerId);
    String volume = newVolume(owner, 20, pool);

    problem(post("/api/v1/volumes/" + volume + "/expansion", "{\"size_gb\":10}", owner), 422, "validation_failed");
    problem(post("/api/v1/volumes/" + volume + "/expansion", "{\"size_gb\":20}", owner), 422, "validation_failed");
    problem(post("/api/v1/volumes/" + volume + "/expansion", "{}", owner), 422, "validation_failed");
    JsonNode tooBig = problem(post("/api/v1/volumes/" + volume + "/expansion", "{\"size_gb\":200}", owner), 409,
        "insufficient_storage");
    assertThat(tooBig.get("requested_gb").asLong()).isEqualTo(180);
    assertThat(count("select count(*) from volume_expansions where volume_id = :p", volume)).isZero();

    JsonNode requested = ok(post("/api/v1/volumes/" + volume + "/expansion", "{\"size_gb\":50}", owner), 201);
    String expansion = requested.get("id").asText();
    assertThat(requested.get("status").asText()).isEqualTo("requested");
    assertThat(requested.get("size_gb").asInt()).isEqualTo(50);
    assertThat(requested.get("requested_by").asText()).isEqualTo(ownerId);
    problem(post("/api/v1/volumes/" + volume + "/expansion", "{\"size_gb\":60}", owner), 409, "conflict");
    assertThat(ok(get("/api/v1/volumes/" + volume, owner), 200).get("expansion").get("id").asText()).isEqualTo(expansion);

    JsonNode queue = ok(get("/api/v1/volume-expansions?status=requested", admin), 200);
    assertThat(queue.get("items")).extracting(e -> e.get("id").asText()).contains(expansion);
    problem(get("/api/v1/volume-expansions?status=requested", owner), 403, "forbidden");
    problem(post("/api/v1/volume-expansions/" + expansion + "/approve", null, owner), 403, "forbidden");
    problem(get("/api/v1/volume-expansions?status=pending", admin), 422, "validation_failed");

    // Someone else took the pool's space since: the approval checks again.
    newVolume(tokenFor(newUser("user")), 60, pool);
    JsonNode full = problem(post("/api/v1/volume-expansions/" + expansion + "/approve", null, admin), 409,
        "insufficient_storage");
    assertThat(full.get("free_gb").asLong()).isEqualTo(20);
    ok(send("PATCH", "/api/v1/storage/pools/" + pool, "{\"manual_capacity_gb\":200}", admin), 200);
    JsonNode approved = ok(post("/api/v1/volume-expansions/" + expansion + "/approve", null, admin), 200);
    assertThat(approved.get("status").asText()).isEqualTo("approved");
    assertThat(approved.hasNonNull("decided_at")).isTrue();
    JsonNode expanding = ok(get("/api/v1/volumes/" + volume, owner), 200);
    assertThat(expanding.get("status").asText()).isEqualTo("expanding");
    assertThat(expanding.get("requested_size_gb").asInt()).isEqualTo(50);
    assertThat(expanding.get("size_gb").asInt()).isEqualTo(20);
    assertThat(expanding.get("expansion").get("status").asText()).isEqualTo("approved");
    // The approved size counts in the pool from now on.
    assertThat(ok(get("/api/v1/storage/pools/" + pool, admin), 200).get("allocated_gb").asLong()).isEqualTo(110);
    problem(post("/api/v1/volume-expansions/" + expansion + "/approve", null, admin), 409, "conflict");
    problem(post("/api/v1/volumes/" + volume + "/expansion", "{\"size_gb\":70}", owner), 409, "conflict");
    assertThat(count("select count(*) from audit_events where action = 'volume.expansion_approved' and object_id = :p",
        volume)).isEqualTo(1);

    // Another request, rejected with a reason.
    String other = newVolume(owner, 10, pool);
    String second = ok(post("/api/v1/volumes/" + other + "/expansion", "{\"size_gb\":15}", owner), 201).get("id").asText();
    problem(post("/api/v1/volume-expansions/" + second + "/reject", "{}", admin), 422, "validation_failed");
    JsonNode rejected = ok(post("/api/v1/volume-expansions/" + second + "/reject", "{\"reason\":\"use a new volume\"}", admin),
        200);
    assertThat(rejected.get("status").asText()).isEqualTo("rejected");
    assertThat(rejected.get("reason").asText()).isEqualTo("use a new volume");
    problem(post("/api/v1/volume-expansions/" + second + "/reject", "{\"reason\":\"again\"}", admin), 409, "conflict");
    problem(post("/api/v1/volume-expansions/" + second + "/approve", null, admin), 409, "conflict");
    problem(post("/api/v1/volume-expansions/vex_nosuch/approve", null, admin), 404, "not_found");
    JsonNode after = ok(get("/api/v1/volumes/" + other, owner), 200);
    assertThat(after.get("status").asText()).isEqualTo("available");
    assertThat(after.has("expansion")).isFalse();
    ok(post("/api/v1/volumes/" + other + "/expansion", "{\"size_gb\":15}", owner), 201);  // a new request may follow
  }

  // ---------------------------------------------------------------------------------------------------------------
  // placement

  @Test
  void aSessionWithAVolumeIsNeverPlacedWhereItsPoolsClassIsMissing() {
    String model = "Volume Placement GPU " + NewTestIds.next("m");
    String ready = fixture.cluster();
    String missing = fixture.cluster();
    String readyNode = fixture.node(ready, "exclusive", model, 1, 81559, 1, null);
    fixture.node(missing, "exclusive", model, 4, 81559, 1, null);
    String one = fixture.offering(model, "exclusive", 1, null, null, 1);
    String user = newUser("user");
    ledger.grant(user, new BigDecimal("1000"), NewTestIds.next("g"), "test", null);
    String pool = manualPool(ready, 1000);  // scope all
    String volume = newVolume(tokenFor(user), 10, pool);
    report(pool, missing, false, null, null);
    report(pool, ready, true, null, null);

    // Binpack alone would take the busier... either cluster; the not-ready one is never chosen.
    for (int i = 0; i < 2; i++) {
      String session = fixture.session(user, model, "exclusive");
      jdbc.sql("update sessions set volume_id = :v where id = :s").param("v", volume).param("s", session).update();
      if (i == 0) {
        assertThat(placement.allocate(new PlacementService.Request(session, user, one)).placement().nodeId())
            .isEqualTo(readyNode);
      } else {
        // The ready cluster's only GPU is taken: the missing-class cluster's four free GPUs do not count.
        assertThatThrownBy(() -> placement.allocate(new PlacementService.Request(session, user, one)))
            .isInstanceOfSatisfying(GshareException.class, e -> {
              assertThat(e.code()).isEqualTo(ProblemCode.INSUFFICIENT_CAPACITY);
              assertThat(e.getMessage()).contains("StorageClass is missing on " + missing);
            });
      }
      jdbc.sql("update sessions set volume_id = null where id = :s").param("s", session).update();
    }
    // Without the volume the same request lands on the other cluster.
    String plain = fixture.session(user, model, "exclusive");
    assertThat(placement.allocate(new PlacementService.Request(plain, user, one)).placement().clusterId()).isEqualTo(missing);
  }
}
