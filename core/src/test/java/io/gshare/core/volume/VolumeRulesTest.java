package io.gshare.core.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.volume.VolumeRules.Limits;
import io.gshare.core.volume.VolumeRules.Usage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class VolumeRulesTest {

  private static final Usage NONE = new Usage(0, 0);

  @ParameterizedTest
  @ValueSource(strings = {"data", "a", "my-data-1", "0", "a23456789012345678901234567890123456789012345678901234567890123"})
  void dnsLabelsAreNames(String name) {
    assertThatCode(() -> VolumeRules.requireName(name)).doesNotThrowAnyException();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "Data", "-data", "data-", "my_data", "my.data", "daten ", "über",
      "a234567890123456789012345678901234567890123456789012345678901234"})
  void otherNamesAre422(String name) {
    assertThatThrownBy(() -> VolumeRules.requireName(name)).isInstanceOfSatisfying(GshareException.class, e -> {
      assertThat(e.code()).isEqualTo(ProblemCode.VALIDATION_FAILED);
      assertThat(e.getMessage()).startsWith("name ");
    });
  }

  @Test
  void sizesAreOneTo100000GiB() {
    assertThatCode(() -> VolumeRules.requireSize(1)).doesNotThrowAnyException();
    assertThatCode(() -> VolumeRules.requireSize(100_000)).doesNotThrowAnyException();
    for (Integer bad : new Integer[] {null, 0, -5, 100_001}) {
      assertThatThrownBy(() -> VolumeRules.requireSize(bad)).isInstanceOfSatisfying(GshareException.class,
          e -> assertThat(e.code()).isEqualTo(ProblemCode.VALIDATION_FAILED));
    }
  }

  @Test
  void noLimitsAdmitAnything() {
    assertThatCode(() -> VolumeRules.checkQuota(new Limits(null, null, null, null), new Usage(1_000_000, 1000),
        new Usage(1_000_000, 1000), 100_000, 1)).doesNotThrowAnyException();
  }

  @Test
  void theUserGibQuotaAdmitsUpToItsLimitAndSaysTheLimitAndTheUse() {
    Limits limits = new Limits(100, null, null, null);
    assertThatCode(() -> VolumeRules.checkQuota(limits, new Usage(70, 2), null, 30, 1)).doesNotThrowAnyException();
    assertThatThrownBy(() -> VolumeRules.checkQuota(limits, new Usage(70, 2), null, 31, 1))
        .isInstanceOfSatisfying(GshareException.class, e -> {
          assertThat(e.code()).isEqualTo(ProblemCode.QUOTA_EXCEEDED);
          assertThat(e.getMessage()).contains("100 GiB").contains("70 GiB").contains("31 GiB");
          assertThat(e.properties()).containsEntry("quota", "volume_quota_gb").containsEntry("limit", 100L)
              .containsEntry("used", 70L).containsEntry("requested", 31L);
        });
  }

  @Test
  void theCountQuotaCountsNewVolumesOnlyNotExpansions() {
    Limits limits = new Limits(null, 2, null, null);
    assertThatThrownBy(() -> VolumeRules.checkQuota(limits, new Usage(10, 2), null, 1, 1))
        .isInstanceOfSatisfying(GshareException.class,
            e -> assertThat(e.properties()).containsEntry("quota", "volume_quota_count"));
    assertThatCode(() -> VolumeRules.checkQuota(limits, new Usage(10, 2), null, 50, 0)).doesNotThrowAnyException();
  }

  @Test
  void teamQuotasApplyToUsersInATeamOnly() {
    Limits limits = new Limits(null, null, 500, 3);
    assertThatCode(() -> VolumeRules.checkQuota(limits, NONE, null, 1000, 1)).doesNotThrowAnyException();
    assertThatThrownBy(() -> VolumeRules.checkQuota(limits, NONE, new Usage(480, 1), 30, 1))
        .isInstanceOfSatisfying(GshareException.class, e -> {
          assertThat(e.properties()).containsEntry("quota", "team_volume_quota_gb");
          assertThat(e.getMessage()).contains("team");
        });
    assertThatThrownBy(() -> VolumeRules.checkQuota(limits, NONE, new Usage(10, 3), 1, 1))
        .isInstanceOfSatisfying(GshareException.class,
            e -> assertThat(e.properties()).containsEntry("quota", "team_volume_quota_count"));
  }

  @Test
  void aZeroQuotaRefusesEveryVolume() {
    assertThatThrownBy(() -> VolumeRules.checkQuota(new Limits(0, null, null, null), NONE, null, 1, 1))
        .isInstanceOf(GshareException.class);
  }

  @Test
  void totalCapacityComesFromTheSourceInWholeGib() {
    assertThat(VolumeRules.totalGb(CapacitySource.MANUAL, 500, 1L << 50, null)).isEqualTo(500);
    assertThat(VolumeRules.totalGb(CapacitySource.CSI, null, 10L * VolumeRules.GIB + 5, 1L)).isEqualTo(10);
    assertThat(VolumeRules.totalGb(CapacitySource.NODE_DISK, null, 1L << 50, 3 * VolumeRules.GIB - 1)).isEqualTo(2);
    assertThat(VolumeRules.totalGb(CapacitySource.CSI, 500, null, 1L << 40)).isNull();
    assertThat(VolumeRules.totalGb(CapacitySource.NODE_DISK, 500, 1L << 40, null)).isNull();
  }

  @Test
  void freeCapacityNeverGoesBelowZero() {
    assertThat(VolumeRules.freeGb(100L, 30)).isEqualTo(70);
    assertThat(VolumeRules.freeGb(100L, 130)).isZero();
    assertThat(VolumeRules.freeGb(null, 30)).isNull();
  }

  @Test
  void capacityRefusesBeyondFreeAndWhileUnknown() {
    assertThatCode(() -> VolumeRules.checkCapacity("stp_1", "nfs", CapacitySource.MANUAL, 100L, 60, 40))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> VolumeRules.checkCapacity("stp_1", "nfs", CapacitySource.MANUAL, 100L, 60, 41))
        .isInstanceOfSatisfying(GshareException.class, e -> {
          assertThat(e.code()).isEqualTo(ProblemCode.INSUFFICIENT_STORAGE);
          assertThat(e.getMessage()).contains("40 GiB free").contains("41 GiB");
          assertThat(e.properties()).containsEntry("free_gb", 40L).containsEntry("requested_gb", 41L);
        });
    assertThatThrownBy(() -> VolumeRules.checkCapacity("stp_1", "nfs", CapacitySource.CSI, null, 0, 1))
        .isInstanceOfSatisfying(GshareException.class, e -> {
          assertThat(e.code()).isEqualTo(ProblemCode.INSUFFICIENT_STORAGE);
          assertThat(e.getMessage()).contains("not been reported").contains("CSIStorageCapacity");
        });
  }
}
