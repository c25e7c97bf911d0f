package io.gshare.clusterworker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.contract.internal.VolumeSync;
import io.gshare.contract.internal.VolumeSyncAnswer;
import io.gshare.sim.kube.KubeCluster;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The volume sync on a real apiserver (the module's shared cluster with the dev seed: StorageClass gshare-data
 * provisioned and resized by the CSI stand-in, storage node sim-cpu-0, the stats summary through the node proxy).
 */
class VolumeSyncReporterTest {

  static final long GIB = 1024L * 1024 * 1024;

  @Test
  void reportsClaimsUsageStorageClassesAndTheStorageDiskThenAppliesTheAnswer() {
    KubeCluster cluster = SharedKubeCluster.get();
    try (KubernetesClient client = cluster.newClient()) {
      SharedKubeCluster.ensureNamespace(client, "gshare-sessions");
      for (String volume : List.of("vol_sa", "vol_sb")) {
        client.resource(new PersistentVolumeClaimBuilder().withNewMetadata().withName("gshare-" + volume.replace('_', '-'))
            .withNamespace("gshare-sessions").addToLabels("gshare.io/volume-id", volume).endMetadata()
            .withNewSpec().withAccessModes("ReadWriteOnce").withStorageClassName("gshare-data")
            .withNewResources().addToRequests("storage", new Quantity("10Gi")).endResources().endSpec().build()).create();
      }
      client.resource(new PodBuilder().withNewMetadata().withName("gshare-ses-sync").withNamespace("gshare-sessions").endMetadata()
          .withNewSpec().withNodeName("sim-cpu-0").addNewContainer().withName("main").withImage("registry.example.com/app:1")
          .endContainer().addNewVolume().withName("data").withNewPersistentVolumeClaim().withClaimName("gshare-vol-sa")
          .endPersistentVolumeClaim().endVolume().endSpec().build()).create();
      try {
        await().atMost(Duration.ofSeconds(30)).until(() -> "Running".equals(phase(client)));
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.setVolumeUsedBytes("gshare-sessions", "gshare-vol-sa",
            3 * GIB));

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
          VolumeSync sync = VolumeSyncReporter.sync(client);
          // Other tests' claims share the namespace: this test's two by their ids.
          List<VolumeSync.VolumeState> mine = sync.volumes().stream().filter(v -> v.volumeId().startsWith("vol_s"))
              .toList();
          assertThat(mine).extracting(VolumeSync.VolumeState::volumeId).containsExactlyInAnyOrder("vol_sa", "vol_sb");
          VolumeSync.VolumeState a = mine.stream().filter(v -> v.volumeId().equals("vol_sa")).findFirst().orElseThrow();
          assertThat(a.phase()).isEqualTo("Bound");
          assertThat(a.capacityBytes()).isEqualTo(10 * GIB);
          assertThat(a.requestedBytes()).isEqualTo(10 * GIB);
          assertThat(a.usedBytes()).as("from the kubelet's stats summary").isEqualTo(3 * GIB);
          assertThat(mine.stream().filter(v -> v.volumeId().equals("vol_sb")).findFirst().orElseThrow().usedBytes())
              .as("not mounted: no figure").isNull();
          // What the CSI driver publishes: the pool's 2000 GiB less what its volumes took.
          assertThat(sync.storageClasses()).contains(new VolumeSync.StorageClassState("gshare-data", true,
              publishedCapacity(client)));
          assertThat(publishedCapacity(client)).isLessThanOrEqualTo(2000 * GIB - 20 * GIB);
          assertThat(sync.storageNodeDiskBytes()).isEqualTo(500 * GIB);
        });

        VolumeSyncReporter.apply(client, new VolumeSyncAnswer(List.of(new VolumeSyncAnswer.ClaimResize("gshare-vol-sa", 20)),
            List.of("gshare-vol-sb")));

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
          var claimA = client.persistentVolumeClaims().inNamespace("gshare-sessions").withName("gshare-vol-sa").get();
          assertThat(claimA.getStatus().getCapacity().get("storage")).isEqualTo(new Quantity("20Gi"));
          assertThat(client.persistentVolumeClaims().inNamespace("gshare-sessions").withName("gshare-vol-sb").get()).isNull();
        });

        // Deleted by hand while mounted: held by its protection, reported as being deleted.
        client.persistentVolumeClaims().inNamespace("gshare-sessions").withName("gshare-vol-sa").delete();
        assertThat(VolumeSyncReporter.sync(client).volumes()).filteredOn(v -> v.volumeId().startsWith("vol_s"))
            .extracting(VolumeSync.VolumeState::phase).containsExactly(VolumeSync.VolumeState.TERMINATING);
      } finally {
        client.pods().inNamespace("gshare-sessions").withName("gshare-ses-sync").withGracePeriod(0).delete();
        client.persistentVolumeClaims().inNamespace("gshare-sessions").withName("gshare-vol-sa").delete();
      }
    }
  }

  /** The free capacity the class's CSIStorageCapacity objects publish, summed as the reporter sums them. */
  private static long publishedCapacity(KubernetesClient client) {
    return client.storage().v1().csiStorageCapacities().inAnyNamespace().list().getItems().stream()
        .filter(c -> "gshare-data".equals(c.getStorageClassName()))
        .mapToLong(c -> Quantity.getAmountInBytes(c.getCapacity()).longValue()).sum();
  }

  private static String phase(KubernetesClient client) {
    var pod = client.pods().inNamespace("gshare-sessions").withName("gshare-ses-sync").get();
    return pod.getStatus() == null ? null : pod.getStatus().getPhase();
  }
}
