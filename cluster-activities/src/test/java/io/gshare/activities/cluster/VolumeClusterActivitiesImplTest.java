package io.gshare.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.SharedKubeCluster;
import io.gshare.activities.cluster.model.SessionObjects;
import io.gshare.workflows.volume.VolumeClusterActivities;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Deleting a volume's claim on a real apiserver (the module's shared cluster), whose PVC protection (admission and
 * the controller-manager's pvc-protection controller) holds a mounted claim. Each test has its own claim.
 */
class VolumeClusterActivitiesImplTest {

  /** A seed node that runs the pods here; nothing in this module drains it. */
  private static final String NODE = "sim-cpu-0";

  private static KubernetesClient client;
  private TestActivityEnvironment env;
  private VolumeClusterActivities activities;

  @BeforeAll
  static void cluster() {
    client = SharedKubeCluster.get().newClient();
    SharedKubeCluster.ensureNamespace(client, SessionObjects.NAMESPACE);
  }

  @AfterAll
  static void closeClient() {
    client.close();
  }

  @BeforeEach
  void activities() {
    env = TestActivityEnvironment.newInstance();
    // 8 s: long enough for the pvc-protection controller to let a claim go once its pod is gone, on a busy machine.
    env.registerActivitiesImplementations(new VolumeClusterActivitiesImpl(client, Duration.ofSeconds(8), Duration.ofMillis(100)));
    activities = env.newActivityStub(VolumeClusterActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofMinutes(1)).setHeartbeatTimeout(Duration.ofSeconds(10))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build()).build());
  }

  private static void claim(String name) {
    client.persistentVolumeClaims().inNamespace(SessionObjects.NAMESPACE).resource(new PersistentVolumeClaimBuilder()
        .withNewMetadata().withName(name).withNamespace(SessionObjects.NAMESPACE).endMetadata()
        .withNewSpec().withAccessModes("ReadWriteOnce").withNewResources()
        .addToRequests("storage", new Quantity("10Gi")).endResources().endSpec().build()).create();
  }

  @AfterEach
  void close() {
    env.close();
  }

  @Test
  void anUnmountedClaimIsDeletedAndADeletedOneIsNoError() {
    claim("gshare-vol-vt1");
    activities.deleteClaim("gshare-vol-vt1");
    assertThat(client.persistentVolumeClaims().inNamespace(SessionObjects.NAMESPACE).withName("gshare-vol-vt1").get()).isNull();
    activities.deleteClaim("gshare-vol-vt1");
  }

  @Test
  void aMountedClaimStaysAndTheFailureNamesThePodThatHoldsIt() {
    claim("gshare-vol-vt2");
    client.pods().inNamespace(SessionObjects.NAMESPACE).resource(new PodBuilder().withNewMetadata().withName("gshare-ses-vt2")
        .withNamespace(SessionObjects.NAMESPACE).endMetadata().withNewSpec().withNodeName(NODE)
        .addNewContainer().withName("main").withImage("registry.example.com/jupyter:1").endContainer()
        .addNewVolume().withName("data").withNewPersistentVolumeClaim().withClaimName("gshare-vol-vt2").endPersistentVolumeClaim()
        .endVolume().endSpec().build()).create();

    // One attempt waits out its patience (8 s): its failure is checked whole.
    assertThatThrownBy(() -> activities.deleteClaim("gshare-vol-vt2")).isInstanceOf(ActivityFailure.class)
        .cause().isInstanceOfSatisfying(ApplicationFailure.class, failure -> {
          assertThat(failure.getType()).isEqualTo(VolumeClusterActivitiesImpl.CLAIM_STILL_PRESENT);
          assertThat(failure.getOriginalMessage()).contains("still mounted by pod gshare-sessions/gshare-ses-vt2");
        });
    assertThat(client.persistentVolumeClaims().inNamespace(SessionObjects.NAMESPACE).withName("gshare-vol-vt2").get()
        .getMetadata().getFinalizers()).as("the apiserver's admission put it there").contains("kubernetes.io/pvc-protection");

    client.pods().inNamespace(SessionObjects.NAMESPACE).withName("gshare-ses-vt2").withGracePeriod(0).delete();
    activities.deleteClaim("gshare-vol-vt2");
    assertThat(client.persistentVolumeClaims().inNamespace(SessionObjects.NAMESPACE).withName("gshare-vol-vt2").get()).isNull();
  }
}
