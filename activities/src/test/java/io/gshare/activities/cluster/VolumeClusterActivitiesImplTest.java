package io.gshare.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.model.SessionObjects;
import io.gshare.sim.SimSeed;
import io.gshare.sim.SimulatedCluster;
import io.gshare.workflows.volume.VolumeClusterActivities;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Deleting a volume's claim against the simulated apiserver, whose PVC protection holds a mounted claim. */
class VolumeClusterActivitiesImplTest {

  private SimulatedCluster sim;
  private KubernetesClient client;
  private TestActivityEnvironment env;
  private VolumeClusterActivities activities;

  @BeforeEach
  void cluster() {
    sim = SimulatedCluster.start(new SimSeed("v1.36.0", List.of(new SimSeed.NodeSpec("gpu-1", "exclusive",
        new SimSeed.GpuSpec("NVIDIA H100 80GB HBM3", 1, 81559, null), Map.of())), null), SimulatedCluster.Options.defaults());
    client = sim.newClient();
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(new VolumeClusterActivitiesImpl(client, Duration.ofSeconds(2), Duration.ofMillis(100)));
    activities = env.newActivityStub(VolumeClusterActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofMinutes(1)).setHeartbeatTimeout(Duration.ofSeconds(10))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build()).build());
    client.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata()
        .withName(SessionObjects.NAMESPACE).endMetadata().build()).serverSideApply();
    client.persistentVolumeClaims().inNamespace(SessionObjects.NAMESPACE).resource(new PersistentVolumeClaimBuilder()
        .withNewMetadata().withName("gshare-vol-1").withNamespace(SessionObjects.NAMESPACE).endMetadata()
        .withNewSpec().withAccessModes("ReadWriteOnce").withNewResources()
        .addToRequests("storage", new Quantity("10Gi")).endResources().endSpec().build()).create();
  }

  @AfterEach
  void close() {
    env.close();
    client.close();
    sim.close();
  }

  @Test
  void anUnmountedClaimIsDeletedAndADeletedOneIsNoError() {
    activities.deleteClaim("gshare-vol-1");
    assertThat(client.persistentVolumeClaims().inNamespace(SessionObjects.NAMESPACE).withName("gshare-vol-1").get()).isNull();
    activities.deleteClaim("gshare-vol-1");
  }

  @Test
  void aMountedClaimStaysAndTheFailureNamesThePodThatHoldsIt() {
    client.pods().inNamespace(SessionObjects.NAMESPACE).resource(new PodBuilder().withNewMetadata().withName("gshare-ses-9")
        .withNamespace(SessionObjects.NAMESPACE).endMetadata().withNewSpec().withNodeName("gpu-1")
        .addNewContainer().withName("main").withImage("registry.example.com/jupyter:1").endContainer()
        .addNewVolume().withName("data").withNewPersistentVolumeClaim().withClaimName("gshare-vol-1").endPersistentVolumeClaim()
        .endVolume().endSpec().build()).create();

    assertThatThrownBy(() -> activities.deleteClaim("gshare-vol-1")).isInstanceOf(ActivityFailure.class)
        .cause().isInstanceOf(ApplicationFailure.class)
        .hasMessageContaining("still mounted by pod gshare-sessions/gshare-ses-9");
    assertThat(((ApplicationFailure) catchCause()).getType()).isEqualTo(VolumeClusterActivitiesImpl.CLAIM_STILL_PRESENT);

    client.pods().inNamespace(SessionObjects.NAMESPACE).withName("gshare-ses-9").withGracePeriod(0).delete();
    activities.deleteClaim("gshare-vol-1");
    assertThat(client.persistentVolumeClaims().inNamespace(SessionObjects.NAMESPACE).withName("gshare-vol-1").get()).isNull();
  }

  private Throwable catchCause() {
    try {
      activities.deleteClaim("gshare-vol-1");
      return null;
    } catch (ActivityFailure e) {
      return e.getCause();
    }
  }
}
