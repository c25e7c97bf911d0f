package io.gshare.api.volume;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.InventoryFixture;
import io.gshare.api.support.NewTestIds;
import io.gshare.client.ApiResponse;
import io.gshare.core.volume.DefaultVolumeStorageClass;
import io.gshare.core.volume.VolumeRepository;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * {@code POST /internal/v1/volumes/sync} as a cluster's worker sends it: claims, used bytes, StorageClasses
 * for the pools, and the answer (approved expansions to apply, claims of reclaimed volumes to delete).
 */
class VolumeSyncIT extends ApiIntegrationTest {

  static final long GIB = 1024L * 1024 * 1024;

  @Autowired ObjectMapper json;
  @Autowired VolumeRepository volumes;

  private String cluster;
  private String other;
  private String pool;
  private String volume;
  private String owner;

  @BeforeEach
  void aVolumeWithAClaim() {
    InventoryFixture fixture = new InventoryFixture(jdbc);
    cluster = fixture.cluster();
    other = fixture.cluster();
    owner = newUser("user");
    pool = NewTestIds.next("sp");
    jdbc.sql("""
        insert into storage_pools (id, name, cluster_id, storage_class, scope, capacity_source)
        values (:p, :p, :c, 'gshare-sync-nfs', 'all', 'csi')
        """).param("p", pool).param("c", cluster).update();
    volume = NewTestIds.next("vol");
    jdbc.sql("insert into volumes (id, owner_id, name, storage_pool_id, size_gb, status) values (:v, :u, :n, :p, 10, 'available')")
        .param("v", volume).param("u", owner).param("n", volume.replace('_', '-')).param("p", pool).update();
    jdbc.sql("insert into volume_claims (volume_id, cluster_id, pvc_name) values (:v, :c, :pvc)")
        .param("v", volume).param("c", cluster).param("pvc", pvc()).update();
  }

  private String pvc() {
    return "gshare-" + volume.replace('_', '-');
  }

  private String sync(long capacityGib, Long usedBytes, long requestedGib, boolean allowsExpansion) throws Exception {
    Map<String, Object> claim = new HashMap<>();
    claim.put("volume_id", volume);
    claim.put("pvc_name", pvc());
    claim.put("phase", "Bound");
    claim.put("capacity_bytes", capacityGib * GIB);
    claim.put("requested_bytes", requestedGib * GIB);
    if (usedBytes != null) {
      claim.put("used_bytes", usedBytes);
    }
    return json.writeValueAsString(Map.of(
        "volumes", List.of(claim),
        "storage_classes", List.of(Map.of("name", "gshare-sync-nfs", "allows_expansion", allowsExpansion,
            "csi_capacity_bytes", 2000 * GIB), Map.of("name", "local-path", "allows_expansion", false)),
        "storage_node_disk_bytes", 500 * GIB));
  }

  private JsonNode post(String body) throws Exception {
    ApiResponse answer = post("/internal/v1/volumes/sync", body, operatorToken(cluster));
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    return json.readTree(answer.text());
  }

  @Test
  void aSyncRecordsClaimsUsageAndThePoolsStorageClassAndKeepsTheLastUsageWhenUnmounted() throws Exception {
    JsonNode answer = post(sync(10, 3 * GIB, 10, true));

    assertThat(answer.path("resize")).isEmpty();
    assertThat(answer.path("delete_claims")).isEmpty();
    Map<String, Object> claim = jdbc.sql("select * from volume_claims where volume_id = :v").param("v", volume)
        .query().singleRow();
    assertThat(claim).containsEntry("phase", "Bound").containsEntry("capacity_bytes", 10 * GIB)
        .containsEntry("used_bytes", 3 * GIB).containsEntry("requested_bytes", 10 * GIB);
    assertThat(jdbc.sql("select used_bytes from volumes where id = :v").param("v", volume).query(Long.class).single())
        .isEqualTo(3 * GIB);
    Map<String, Object> status = jdbc.sql("select * from storage_pool_cluster_status where pool_id = :p and cluster_id = :c")
        .param("p", pool).param("c", cluster).query().singleRow();
    assertThat(status).containsEntry("storage_class_present", true).containsEntry("allows_expansion", true)
        .containsEntry("csi_capacity_bytes", 2000 * GIB).containsEntry("node_disk_bytes", 500 * GIB);

    post(sync(10, null, 10, true)); // unmounted: no figure
    assertThat(jdbc.sql("select used_bytes from volumes where id = :v").param("v", volume).query(Long.class).single())
        .as("the last figure is kept").isEqualTo(3 * GIB);
  }

  @Test
  void aClaimReportedBeforeAndGoneFromACompleteSyncIsRecordedMissingAndOneNotMadeYetIsLeftAlone() throws Exception {
    String emptySync = json.writeValueAsString(Map.of("volumes", List.of()));
    post(emptySync);
    assertThat(claimPhase()).as("recorded before the claim is made, never synced: not missing").isNull();

    post(sync(10, 3 * GIB, 10, true));
    assertThat(claimPhase()).isEqualTo("Bound");
    post(emptySync); // deleted outside gShare
    Map<String, Object> claim = jdbc.sql("select * from volume_claims where volume_id = :v").param("v", volume)
        .query().singleRow();
    assertThat(claim).containsEntry("phase", "Missing").containsEntry("used_bytes", null);

    post(sync(10, null, 10, true)); // a session claimed it again
    assertThat(claimPhase()).isEqualTo("Bound");
  }

  private String claimPhase() {
    return jdbc.sql("select phase from volume_claims where volume_id = :v").param("v", volume).query((rs, n) -> rs.getString(1))
        .list().get(0);
  }

  @Test
  void aClusterWithoutThePoolsStorageClassIsReportedNotReady() throws Exception {
    String body = json.writeValueAsString(Map.of("volumes", List.of(),
        "storage_classes", List.of(Map.of("name", "local-path", "allows_expansion", false))));
    ApiResponse answer = post("/internal/v1/volumes/sync", body, operatorToken(other));
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    assertThat(jdbc.sql("select storage_class_present from storage_pool_cluster_status where pool_id = :p and cluster_id = :c")
        .param("p", pool).param("c", other).query(Boolean.class).single()).isFalse();
  }

  @Test
  void anApprovedExpansionIsAnsweredUntilEveryClaimReachesItThenApplied() throws Exception {
    String expansion = NewTestIds.next("vex");
    jdbc.sql("""
        insert into volume_expansions (id, volume_id, requested_by, size_gb, status, decided_at)
        values (:id, :v, :u, 20, 'approved', now())
        """).param("id", expansion).param("v", volume).param("u", owner).update();
    jdbc.sql("update volumes set status = 'expanding', requested_size_gb = 20 where id = :v").param("v", volume).update();

    JsonNode first = post(sync(10, null, 10, true));
    assertThat(first.path("resize")).hasSize(1);
    assertThat(first.at("/resize/0/pvc_name").asText()).isEqualTo(pvc());
    assertThat(first.at("/resize/0/size_gb").asInt()).isEqualTo(20);

    // The worker raised the request; the claim has not grown yet: nothing more to ask, not applied yet.
    JsonNode asked = post(sync(10, null, 20, true));
    assertThat(asked.path("resize")).isEmpty();
    assertThat(jdbc.sql("select status from volume_expansions where id = :id").param("id", expansion)
        .query(String.class).single()).isEqualTo("approved");

    post(sync(20, null, 20, true));
    assertThat(jdbc.sql("select status from volume_expansions where id = :id").param("id", expansion)
        .query(String.class).single()).isEqualTo("applied");
    Map<String, Object> now = jdbc.sql("select size_gb, requested_size_gb, status from volumes where id = :v")
        .param("v", volume).query().singleRow();
    assertThat(now).containsEntry("size_gb", 20).containsEntry("status", "available");
    assertThat(now.get("requested_size_gb")).isNull();
  }

  @Test
  void aClassThatCannotExpandIsSaidOnTheExpansionAndNoResizeIsAsked() throws Exception {
    String expansion = NewTestIds.next("vex");
    jdbc.sql("""
        insert into volume_expansions (id, volume_id, requested_by, size_gb, status, decided_at)
        values (:id, :v, :u, 30, 'approved', now())
        """).param("id", expansion).param("v", volume).param("u", owner).update();

    post(sync(10, null, 10, false)); // records allows_expansion = false for the pool here
    JsonNode answer = post(sync(10, null, 10, false));

    assertThat(answer.path("resize")).isEmpty();
    assertThat(jdbc.sql("select reason from volume_expansions where id = :id").param("id", expansion)
        .query(String.class).single()).contains("does not allow expansion");
  }

  @Test
  void aClaimOfAReclaimedVolumeIsAnsweredForDeletion() throws Exception {
    jdbc.sql("update volumes set status = 'reclaimed', reclaimed_at = now(), deleted_at = now() where id = :v")
        .param("v", volume).update();

    JsonNode answer = post(sync(10, null, 10, true));

    assertThat(answer.path("delete_claims")).extracting(JsonNode::asText).containsExactly(pvc());
  }

  @Test
  void aSyncNamingAnotherClustersVolumeIsRefusedAndWritesNothing() throws Exception {
    ApiResponse refused = post("/internal/v1/volumes/sync", sync(10, 5 * GIB, 10, true), operatorToken(other));

    assertThat(refused.status()).as(refused.text()).isEqualTo(403);
    assertThat(jdbc.sql("select used_bytes from volumes where id = :v").param("v", volume).query(Long.class).optional())
        .isEmpty();
    assertThat(jdbc.sql("select count(*) from storage_pool_cluster_status where cluster_id = :c").param("c", other)
        .query(Integer.class).single()).isZero();
  }

  @Test
  void aVolumeWithoutAPoolTakesTheStorageClassItsClusterWasAttachedWith() {
    jdbc.sql("update clusters set storage_settings = cast(:s as jsonb) where id = :c")
        .param("s", "{\"volume_storage_class\":\"gshare-attached-nfs\"}").param("c", cluster).update();
    String poolless = NewTestIds.next("vol");
    jdbc.sql("insert into volumes (id, owner_id, name, size_gb, status) values (:v, :u, :n, 5, 'available')")
        .param("v", poolless).param("u", owner).param("n", poolless.replace('_', '-')).update();

    assertThat(volumes.mountOf(poolless, cluster).storageClass()).isEqualTo("gshare-attached-nfs");
    assertThat(volumes.mountOf(poolless, other).storageClass()).as("no class set: the cluster's default").isNull();
    assertThat(volumes.mountOf(volume, cluster).storageClass()).as("the pool's class first").isEqualTo("gshare-sync-nfs");

    // The chart's operator.volumeStorageClass: for a cluster that names no class of its own, and only there.
    VolumeRepository withDefault = new VolumeRepository(jdbc, new DefaultVolumeStorageClass("gshare-data"));
    assertThat(withDefault.mountOf(poolless, other).storageClass()).isEqualTo("gshare-data");
    assertThat(withDefault.mountOf(poolless, cluster).storageClass()).isEqualTo("gshare-attached-nfs");
    assertThat(withDefault.mountOf(volume, other).storageClass()).isEqualTo("gshare-sync-nfs");
  }
}
