package io.gshare.clusterworker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.contract.internal.VolumeSync;
import io.gshare.contract.internal.VolumeSyncAnswer;
import io.gshare.sim.SimulatedCluster;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The volume sync against the simulator's default cluster (StorageClass gshare-data, storage node sim-cpu-0). */
class VolumeSyncReporterTest {

  static final long GIB = 1024L * 1024 * 1024;

  @Test
  void reportsClaimsUsageStorageClassesAndTheStorageDiskThenAppliesTheAnswer() {
    try (SimulatedCluster cluster = SimulatedCluster.start(SimulatedCluster.defaultSeed(), SimulatedCluster.Options.defaults());
        KubernetesClient client = cluster.newClient()) {
      client.resource(new NamespaceBuilder().withNewMetadata().withName("gshare-sessions").endMetadata().build()).create();
      for (String volume : List.of("vol_a", "vol_b")) {
        client.resource(new PersistentVolumeClaimBuilder().withNewMetadata().withName("gshare-" + volume.replace('_', '-'))
            .withNamespace("gshare-sessions").addToLabels("gshare.io/volume-id", volume).endMetadata()
            .withNewSpec().withAccessModes("ReadWriteOnce").withStorageClassName("gshare-data")
            .withNewResources().addToRequests("storage", new Quantity("10Gi")).endResources().endSpec().build()).create();
      }
      client.resource(new PodBuilder().withNewMetadata().withName("gshare-ses-a").withNamespace("gshare-sessions").endMetadata()
          .withNewSpec().withNodeName("sim-cpu-0").addNewContainer().withName("main").withImage("registry.example.com/app:1")
          .endContainer().addNewVolume().withName("data").withNewPersistentVolumeClaim().withClaimName("gshare-vol-a")
          .endPersistentVolumeClaim().endVolume().endSpec().build()).create();
      await().atMost(Duration.ofSeconds(20)).until(() -> "Running".equals(phase(client)));
      assertThat(cluster.setVolumeUsedBytes("gshare-sessions", "gshare-vol-a", 3 * GIB)).isTrue();

      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
        VolumeSync sync = VolumeSyncReporter.sync(client);
        assertThat(sync.volumes()).extracting(VolumeSync.VolumeState::volumeId).containsExactlyInAnyOrder("vol_a", "vol_b");
        VolumeSync.VolumeState a = sync.volumes().stream().filter(v -> v.volumeId().equals("vol_a")).findFirst().orElseThrow();
        assertThat(a.phase()).isEqualTo("Bound");
        assertThat(a.capacityBytes()).isEqualTo(10 * GIB);
        assertThat(a.requestedBytes()).isEqualTo(10 * GIB);
        assertThat(a.usedBytes()).as("from the kubelet's stats summary").isEqualTo(3 * GIB);
        assertThat(sync.volumes().stream().filter(v -> v.volumeId().equals("vol_b")).findFirst().orElseThrow().usedBytes())
            .as("not mounted: no figure").isNull();
        assertThat(sync.storageClasses()).contains(new VolumeSync.StorageClassState("gshare-data", true, 2000 * GIB));
        assertThat(sync.storageNodeDiskBytes()).isEqualTo(500 * GIB);
      });

      VolumeSyncReporter.apply(client, new VolumeSyncAnswer(List.of(new VolumeSyncAnswer.ClaimResize("gshare-vol-a", 20)),
          List.of("gshare-vol-b")));

      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
        var claimA = client.persistentVolumeClaims().inNamespace("gshare-sessions").withName("gshare-vol-a").get();
        assertThat(claimA.getStatus().getCapacity().get("storage")).isEqualTo(new Quantity("20Gi"));
        assertThat(client.persistentVolumeClaims().inNamespace("gshare-sessions").withName("gshare-vol-b").get()).isNull();
      });

      // Deleted by hand while mounted: held by its protection, reported as being deleted.
      client.persistentVolumeClaims().inNamespace("gshare-sessions").withName("gshare-vol-a").delete();
      assertThat(VolumeSyncReporter.sync(client).volumes()).extracting(VolumeSync.VolumeState::phase)
          .containsExactly(VolumeSync.VolumeState.TERMINATING);
    }
  }

  private static String phase(KubernetesClient client) {
    var pod = client.pods().inNamespace("gshare-sessions").withName("gshare-ses-a").get();
    return pod.getStatus() == null ? null : pod.getStatus().getPhase();
  }
}
