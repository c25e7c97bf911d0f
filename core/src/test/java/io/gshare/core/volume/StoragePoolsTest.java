package io.gshare.core.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.volume.StoragePoolRepository.Row;
import io.gshare.core.volume.StoragePools.PoolInput;
import io.gshare.core.volume.StoragePools.Resolved;
import java.util.List;
import org.junit.jupiter.api.Test;

class StoragePoolsTest {

  private static PoolInput create(String scope, List<String> clusters, String source, Integer manual) {
    return new PoolInput("nfs-main", "clu_a", "gshare-nfs", scope, clusters, source, manual, null);
  }

  private static PoolInput change() {
    return new PoolInput(null, null, null, null, null, null, null, null);
  }

  private static String badField(Row current, List<String> clusters, PoolInput in) {
    try {
      StoragePools.resolve(current, clusters, in);
      return null;
    } catch (GshareException e) {
      assertThat(e.code()).isEqualTo(ProblemCode.VALIDATION_FAILED);
      return e.getMessage().split(" ")[0];
    }
  }

  @Test
  void aCreateDefaultsToScopeAllAndCsi() {
    Resolved pool = StoragePools.resolve(null, List.of(), create(null, null, null, null));
    assertThat(pool.row()).isEqualTo(new Row("nfs-main", "clu_a", "gshare-nfs", PoolScope.ALL, CapacitySource.CSI, null, false));
    assertThat(pool.clusterIds()).isEmpty();
  }

  @Test
  void manualNeedsItsCapacityAndOnlyManualTakesOne() {
    assertThat(StoragePools.resolve(null, List.of(), create(null, null, "manual", 500)).row().manualCapacityGb()).isEqualTo(500);
    assertThat(badField(null, List.of(), create(null, null, "manual", null))).isEqualTo("manual_capacity_gb");
    assertThat(badField(null, List.of(), create(null, null, "manual", 0))).isEqualTo("manual_capacity_gb");
    assertThat(badField(null, List.of(), create(null, null, "csi", 500))).isEqualTo("manual_capacity_gb");
    assertThat(badField(null, List.of(), create(null, null, "node_disk", 500))).isEqualTo("manual_capacity_gb");
    assertThat(badField(null, List.of(), create(null, null, "zfs", null))).isEqualTo("capacity_source");
  }

  @Test
  void selectedNamesItsClustersAndAllNamesNone() {
    Resolved selected = StoragePools.resolve(null, List.of(), create("selected", List.of("clu_b", "clu_c", "clu_b"), null, null));
    assertThat(selected.clusterIds()).containsExactly("clu_b", "clu_c");
    assertThat(badField(null, List.of(), create("selected", null, null, null))).isEqualTo("cluster_ids");
    assertThat(badField(null, List.of(), create("selected", List.of(), null, null))).isEqualTo("cluster_ids");
    assertThat(badField(null, List.of(), create("all", List.of("clu_b"), null, null))).isEqualTo("cluster_ids");
    assertThat(badField(null, List.of(), create("some", null, null, null))).isEqualTo("scope");
  }

  @Test
  void requiredMembersAndKubernetesNames() {
    assertThat(badField(null, List.of(), new PoolInput(null, "clu_a", "gshare-nfs", null, null, null, null, null)))
        .isEqualTo("name");
    assertThat(badField(null, List.of(), new PoolInput(" ", "clu_a", "gshare-nfs", null, null, null, null, null)))
        .isEqualTo("name");
    assertThat(badField(null, List.of(), new PoolInput("p", null, "gshare-nfs", null, null, null, null, null)))
        .isEqualTo("cluster_id");
    for (String bad : new String[] {"Gshare", "gshare_nfs", "-nfs", "nfs.", "a".repeat(254)}) {
      assertThat(badField(null, List.of(), new PoolInput("p", "clu_a", bad, null, null, null, null, null)))
          .as(bad).isEqualTo("storage_class");
    }
    assertThat(StoragePools.resolve(null, List.of(), new PoolInput("p", "clu_a", "nfs.csi.example.com", null, null, null, null,
        true)).row().isDefault()).isTrue();
  }

  @Test
  void anUpdateKeepsWhatItDoesNotName() {
    Row manual = new Row("nfs-main", "clu_a", "gshare-nfs", PoolScope.SELECTED, CapacitySource.MANUAL, 500, true);
    Resolved same = StoragePools.resolve(manual, List.of("clu_b"), change());
    assertThat(same.row()).isEqualTo(manual);
    assertThat(same.clusterIds()).containsExactly("clu_b");

    Resolved toCsi = StoragePools.resolve(manual, List.of("clu_b"),
        new PoolInput(null, null, null, "all", null, "csi", null, null));
    assertThat(toCsi.row().manualCapacityGb()).isNull();
    assertThat(toCsi.row().scope()).isEqualTo(PoolScope.ALL);
    assertThat(toCsi.clusterIds()).isEmpty();

    Row csiAll = toCsi.row();
    assertThat(badField(csiAll, List.of(), new PoolInput(null, null, null, null, null, "manual", null, null)))
        .isEqualTo("manual_capacity_gb");
    assertThat(badField(csiAll, List.of(), new PoolInput(null, null, null, "selected", null, null, null, null)))
        .isEqualTo("cluster_ids");
    assertThatThrownBy(() -> StoragePools.resolve(csiAll, List.of(), new PoolInput(null, null, null, null, List.of("clu_b"),
        null, null, null))).isInstanceOf(GshareException.class);
  }
}
