package io.gshare.sim.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.CSIStorageCapacity;
import io.fabric8.kubernetes.api.model.storage.CSIStorageCapacityBuilder;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gshare.sim.SimObjects;
import io.gshare.sim.SimSeed;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link ClaimProvisionerStandIn} on the real control plane ({@link LocalKubernetes}): the real PV controller marks
 * claims for the seed's CSI provisioner and binds the volumes the stand-in provisions, a WaitForFirstConsumer claim
 * waits for the real scheduler's node, an expansion goes through external-resizer's sequence, a pool's published
 * capacity refuses claims and expansions that do not fit and is lowered and given back as volumes come and go, a
 * Released volume is deleted or kept by its reclaim policy, the real apiserver refuses to grow a claim of a class
 * without {@code allowVolumeExpansion}, and the bytes in use per claim are kept and forgotten.
 */
class ClaimProvisionerStandInIT {

  private static final String NAMESPACE = "claim-provisioner-it";
  private static final SimSeed SEED = SimSeed.defaultSeed();
  private static final String SEED_CLASS = SEED.storageClasses().get(0).name();
  private static final String SEED_DRIVER = SEED.storageClasses().get(0).provisioner();
  /** A class of its own with a small pool, so that capacity figures are this test's alone. */
  private static final String SMALL_CLASS = "claim-provisioner-it-small";
  private static final String SMALL_DRIVER = "pool.csi.example.com";
  private static final String SMALL_POOL = "claim-provisioner-it-pool";
  private static final String FIXED_CLASS = "claim-provisioner-it-fixed";
  private static final String LATE_CLASS = "claim-provisioner-it-late";
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final String RESIZE_FORBIDDEN = "only dynamically provisioned pvc can be resized and the "
      + "storageclass that provisions the pvc must support resize";

  private static KubernetesClient client;
  private static ClaimProvisionerStandIn standIn;

  @BeforeAll
  static void start() {
    LocalKubernetes kube = LocalKubernetes.shared();
    client = kube.newClient();
    for (HasMetadata object : SimObjects.storage(SEED.storageClasses())) {
      createIfAbsent(object);
    }
    GpuNodes nodes = new GpuNodes(client, "claim-it");
    SEED.nodes().forEach(n -> nodes.add(n, SEED.kubernetesVersion()));
    nodes.awaitReady(SEED.nodes().stream().map(SimSeed.NodeSpec::name).toList(), Duration.ofSeconds(60));
    createIfAbsent(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build());
    createIfAbsent(new StorageClassBuilder().withNewMetadata().withName(SMALL_CLASS).endMetadata()
        .withProvisioner(SMALL_DRIVER).withReclaimPolicy("Delete").withVolumeBindingMode("Immediate")
        .withAllowVolumeExpansion(true).build());
    createIfAbsent(new StorageClassBuilder().withNewMetadata().withName(FIXED_CLASS).endMetadata()
        .withProvisioner(SEED_DRIVER).withReclaimPolicy("Retain").withVolumeBindingMode("Immediate")
        .withAllowVolumeExpansion(false).build());
    createIfAbsent(new StorageClassBuilder().withNewMetadata().withName(LATE_CLASS).endMetadata()
        .withProvisioner(SEED_DRIVER).withReclaimPolicy("Delete").withVolumeBindingMode("WaitForFirstConsumer")
        .withAllowVolumeExpansion(true).build());
    // 10Gi free, volumes of at most 8Gi: as a driver publishes a small pool reachable from every node.
    client.storage().v1().csiStorageCapacities().inNamespace(NAMESPACE).withName(SMALL_POOL).delete();
    await().atMost(PATIENCE).until(() -> pool() == null);
    client.resource(new CSIStorageCapacityBuilder().withNewMetadata().withName(SMALL_POOL).withNamespace(NAMESPACE)
        .addToLabels("csi.storage.k8s.io/drivername", SMALL_DRIVER).endMetadata()
        .withStorageClassName(SMALL_CLASS).withCapacity(new Quantity("10Gi"))
        .withMaximumVolumeSize(new Quantity("8Gi")).withNodeTopology(new LabelSelector()).build()).create();
    // A pod is admitted only once the ServiceAccount controller made the namespace's default account.
    await().atMost(PATIENCE).until(() ->
        client.serviceAccounts().inNamespace(NAMESPACE).withName("default").get() != null);
    standIn = ClaimProvisionerStandIn.start(client, Duration.ofMillis(200));
  }

  /** Leaves the shared cluster's seed pool as found: the claims go and the stand-in reclaims their volumes. */
  @AfterAll
  static void stop() {
    try {
      if (standIn != null) {
        client.pods().inNamespace(NAMESPACE).withGracePeriod(0).delete();
        client.persistentVolumeClaims().inNamespace(NAMESPACE).delete();
        await().atMost(PATIENCE).until(() -> client.persistentVolumes().list().getItems().stream().noneMatch(v ->
            "Delete".equals(v.getSpec().getPersistentVolumeReclaimPolicy()) && v.getSpec().getClaimRef() != null
                && NAMESPACE.equals(v.getSpec().getClaimRef().getNamespace())));
      }
    } finally {
      if (standIn != null) {
        standIn.close();
      }
      if (client != null) {
        client.close();
      }
    }
  }

  @Test
  void aClaimIsProvisionedByTheStandInAndBoundByTheRealPvController() {
    PersistentVolumeClaim created = createClaim("bound", SEED_CLASS, "5Gi");

    PersistentVolumeClaim bound = awaitBound("bound");
    String volumeName = "pvc-" + created.getMetadata().getUid();
    assertThat(bound.getSpec().getVolumeName()).isEqualTo(volumeName);
    assertThat(bound.getStatus().getCapacity()).containsEntry("storage", new Quantity("5Gi"));
    assertThat(bound.getStatus().getAccessModes()).containsExactly("ReadWriteOnce");
    // Written by the real PV controller: it left the claim to this provisioner, then bound it.
    assertThat(bound.getMetadata().getAnnotations())
        .containsEntry(ClaimProvisionerStandIn.STORAGE_PROVISIONER, SEED_DRIVER)
        .containsEntry("pv.kubernetes.io/bind-completed", "yes");
    assertThat(bound.getMetadata().getFinalizers()).contains("kubernetes.io/pvc-protection");

    PersistentVolume volume = client.persistentVolumes().withName(volumeName).get();
    assertThat(volume.getStatus().getPhase()).isEqualTo("Bound");
    assertThat(volume.getMetadata().getAnnotations()).containsEntry(ClaimProvisionerStandIn.PROVISIONED_BY, SEED_DRIVER);
    assertThat(volume.getSpec().getClaimRef().getNamespace()).isEqualTo(NAMESPACE);
    assertThat(volume.getSpec().getClaimRef().getName()).isEqualTo("bound");
    assertThat(volume.getSpec().getClaimRef().getUid()).isEqualTo(created.getMetadata().getUid());
    assertThat(volume.getSpec().getCapacity()).containsEntry("storage", new Quantity("5Gi"));
    assertThat(volume.getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Delete");
    assertThat(volume.getSpec().getStorageClassName()).isEqualTo(SEED_CLASS);
    assertThat(volume.getSpec().getVolumeMode()).isEqualTo("Filesystem");
    assertThat(volume.getSpec().getCsi().getDriver()).isEqualTo(SEED_DRIVER);
    assertThat(volume.getSpec().getCsi().getVolumeHandle()).isEqualTo(volumeName);
    assertThat(volume.getMetadata().getFinalizers()).contains("kubernetes.io/pv-protection");
    assertThat(events("bound")).extracting(Event::getReason).contains("ProvisioningSucceeded");
  }

  @Test
  void aWaitForFirstConsumerClaimIsProvisionedOnceTheRealSchedulerPicksANode() {
    createClaim("late", LATE_CLASS, "1Gi");
    await().atMost(PATIENCE).untilAsserted(() -> assertThat(events("late"))
        .anyMatch(e -> "WaitForFirstConsumer".equals(e.getReason())));
    assertThat(claim("late").getStatus().getPhase()).isEqualTo("Pending");

    client.resource(new PodBuilder().withNewMetadata().withName("late-consumer").withNamespace(NAMESPACE).endMetadata()
        .withNewSpec().addNewContainer().withName("main").withImage("registry.example.com/app:1")
        .addNewVolumeMount().withName("data").withMountPath("/data").endVolumeMount().endContainer()
        .addNewVolume().withName("data").withNewPersistentVolumeClaim().withClaimName("late").endPersistentVolumeClaim()
        .endVolume().endSpec().build()).create();

    PersistentVolumeClaim bound = awaitBound("late");
    await().atMost(PATIENCE).untilAsserted(() -> {
      Pod pod = client.pods().inNamespace(NAMESPACE).withName("late-consumer").get();
      assertThat(pod.getSpec().getNodeName()).isNotBlank();
      assertThat(pod.getStatus().getPhase()).isEqualTo("Running");
    });
    Pod pod = client.pods().inNamespace(NAMESPACE).withName("late-consumer").get();
    assertThat(bound.getMetadata().getAnnotations())
        .containsEntry(ClaimProvisionerStandIn.SELECTED_NODE, pod.getSpec().getNodeName());
  }

  @Test
  void anExpansionGoesThroughExternalResizersSequence() throws Exception {
    createClaim("grow", SEED_CLASS, "1Gi");
    awaitBound("grow");
    List<PersistentVolumeClaim> seen = new CopyOnWriteArrayList<>();
    try (Watch watch = client.persistentVolumeClaims().inNamespace(NAMESPACE).withName("grow").watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, PersistentVolumeClaim claim) {
        seen.add(claim);
      }

      @Override
      public void onClose(WatcherException cause) {}
    })) {
      // As the cluster worker asks for an approved expansion (VolumeSyncReporter).
      client.persistentVolumeClaims().inNamespace(NAMESPACE).withName("grow").patch(PatchContext.of(PatchType.JSON_MERGE),
          "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"3Gi\"}}}}");

      await().atMost(PATIENCE).untilAsserted(() -> assertThat(claim("grow").getStatus().getCapacity())
          .containsEntry("storage", new Quantity("3Gi")));
    }
    PersistentVolumeClaim grown = claim("grow");
    assertThat(grown.getStatus().getPhase()).isEqualTo("Bound");
    assertThat(grown.getStatus().getAllocatedResources()).containsEntry("storage", new Quantity("3Gi"));
    assertThat(grown.getStatus().getConditions()).noneMatch(c -> "Resizing".equals(c.getType()));
    assertThat(orEmpty(grown.getStatus().getAllocatedResourceStatuses())).doesNotContainKey("storage");
    assertThat(client.persistentVolumes().withName(grown.getSpec().getVolumeName()).get().getSpec().getCapacity())
        .containsEntry("storage", new Quantity("3Gi"));
    // On the way: Resizing with the new allocation while the capacity was still the old one.
    assertThat(seen).anyMatch(c -> c.getStatus().getConditions() != null
        && c.getStatus().getConditions().stream().anyMatch(k -> "Resizing".equals(k.getType()))
        && new Quantity("3Gi").equals(orEmpty(c.getStatus().getAllocatedResources()).get("storage"))
        && "ControllerResizeInProgress".equals(orEmpty(c.getStatus().getAllocatedResourceStatuses()).get("storage"))
        && new Quantity("1Gi").equals(orEmpty(c.getStatus().getCapacity()).get("storage")));
    assertThat(events("grow")).extracting(Event::getReason).contains("Resizing", "VolumeResizeSuccessful");
  }

  @Test
  void aClaimLargerThanTheSeedsMaximumVolumeSizeStaysPending() {
    PersistentVolumeClaim created = createClaim("too-big", SEED_CLASS, "2500Gi");

    await().atMost(PATIENCE).untilAsserted(() -> assertThat(events("too-big")).anyMatch(e ->
        "ProvisioningFailed".equals(e.getReason()) && "Warning".equals(e.getType())
            && e.getMessage().equals("rpc error: code = OutOfRange desc = required capacity 2500Gi is greater than the "
                + "maximum volume size 2000Gi")));
    assertThat(claim("too-big").getStatus().getPhase()).isEqualTo("Pending");
    assertThat(client.persistentVolumes().withName("pvc-" + created.getMetadata().getUid()).get()).isNull();
    client.persistentVolumeClaims().inNamespace(NAMESPACE).withName("too-big").delete();
  }

  @Test
  void aPoolsCapacityRefusesWhatDoesNotFitAndIsTakenAndGivenBack() {
    PersistentVolumeClaim first = createClaim("first", SMALL_CLASS, "6Gi");
    awaitBound("first");
    await().atMost(PATIENCE).untilAsserted(() -> assertThat(pool().getCapacity()).isEqualTo(new Quantity("4Gi")));

    PersistentVolumeClaim second = createClaim("second", SMALL_CLASS, "5Gi");
    await().atMost(PATIENCE).untilAsserted(() -> assertThat(events("second")).anyMatch(e ->
        "ProvisioningFailed".equals(e.getReason()) && "Warning".equals(e.getType())
            && e.getMessage().equals("rpc error: code = ResourceExhausted desc = insufficient capacity: 5Gi more "
                + "needed, 4Gi available")));
    assertThat(claim("second").getStatus().getPhase()).isEqualTo("Pending");
    assertThat(client.persistentVolumes().withName("pvc-" + second.getMetadata().getUid()).get()).isNull();

    // Growing a volume takes from the pool too.
    client.persistentVolumeClaims().inNamespace(NAMESPACE).withName("first").patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"7Gi\"}}}}");
    await().atMost(PATIENCE).untilAsserted(() -> assertThat(claim("first").getStatus().getCapacity())
        .containsEntry("storage", new Quantity("7Gi")));
    await().atMost(PATIENCE).untilAsserted(() -> assertThat(pool().getCapacity()).isEqualTo(new Quantity("3Gi")));

    // Deleting the claim deletes its volume (reclaim Delete) and gives its space back: the waiting claim now fits.
    client.persistentVolumeClaims().inNamespace(NAMESPACE).withName("first").delete();
    await().atMost(PATIENCE).until(() -> client.persistentVolumes().withName("pvc-" + first.getMetadata().getUid())
        .get() == null);
    assertThat(awaitBound("second").getStatus().getCapacity()).containsEntry("storage", new Quantity("5Gi"));
    await().atMost(PATIENCE).untilAsserted(() -> assertThat(pool().getCapacity()).isEqualTo(new Quantity("5Gi")));

    // An expansion beyond the largest volume the pool takes is infeasible: refused, and the claim keeps its size.
    client.persistentVolumeClaims().inNamespace(NAMESPACE).withName("second").patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"9Gi\"}}}}");
    await().atMost(PATIENCE).untilAsserted(() -> assertThat(claim("second").getStatus().getAllocatedResourceStatuses())
        .containsEntry("storage", "ControllerResizeInfeasible"));
    PersistentVolumeClaim refused = claim("second");
    assertThat(refused.getStatus().getCapacity()).containsEntry("storage", new Quantity("5Gi"));
    assertThat(refused.getStatus().getConditions()).anyMatch(c -> "ControllerResizeError".equals(c.getType())
        && c.getMessage().contains("OutOfRange"));
    assertThat(events("second")).anyMatch(e -> "VolumeResizeFailed".equals(e.getReason())
        && e.getMessage().startsWith("resize volume \"pvc-" + second.getMetadata().getUid() + "\" by resizer \""
            + SMALL_DRIVER + "\" failed: rpc error: code = OutOfRange"));
    assertThat(pool().getCapacity()).isEqualTo(new Quantity("5Gi"));
    client.persistentVolumeClaims().inNamespace(NAMESPACE).withName("second").delete();
  }

  @Test
  void theRealApiserverRefusesToGrowAClaimOfAClassWithoutExpansionAndARetainedVolumeStays() {
    PersistentVolumeClaim created = createClaim("fixed", FIXED_CLASS, "1Gi");
    awaitBound("fixed");

    assertThatThrownBy(() -> client.persistentVolumeClaims().inNamespace(NAMESPACE).withName("fixed")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"2Gi\"}}}}"))
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(HttpURLConnection.HTTP_FORBIDDEN);
          assertThat(e.getStatus().getMessage())
              .isEqualTo("persistentvolumeclaims \"fixed\" is forbidden: " + RESIZE_FORBIDDEN);
        });

    String retained = "pvc-" + created.getMetadata().getUid();
    client.persistentVolumeClaims().inNamespace(NAMESPACE).withName("fixed").delete();
    await().atMost(PATIENCE).untilAsserted(() -> assertThat(client.persistentVolumes().withName(retained).get()
        .getStatus().getPhase()).isEqualTo("Released"));
    // A volume of reclaim policy Delete released later is deleted: the stand-in has looked at the retained one since.
    PersistentVolumeClaim later = createClaim("released-later", SEED_CLASS, "1Gi");
    awaitBound("released-later");
    client.persistentVolumeClaims().inNamespace(NAMESPACE).withName("released-later").delete();
    await().atMost(PATIENCE).until(() -> client.persistentVolumes().withName("pvc-" + later.getMetadata().getUid())
        .get() == null);
    PersistentVolume kept = client.persistentVolumes().withName(retained).get();
    assertThat(kept).as("the retained volume " + retained).isNotNull();
    assertThat(kept.getStatus().getPhase()).isEqualTo("Released");
    assertThat(kept.getMetadata().getDeletionTimestamp()).isNull();
    client.persistentVolumes().withName(retained).delete();
  }

  @Test
  void usedBytesAreKeptPerClaimAndForgottenWithIt() {
    assertThat(standIn.setUsedBytes(NAMESPACE, "no-such-claim", 1)).isFalse();
    assertThat(standIn.usedBytes(NAMESPACE, "no-such-claim")).isZero();
    createClaim("used", SEED_CLASS, "1Gi");

    assertThat(standIn.setUsedBytes(NAMESPACE, "used", 123_456)).isTrue();
    assertThat(standIn.usedBytes(NAMESPACE, "used")).isEqualTo(123_456);
    assertThat(standIn.usedBytes("default", "used")).isZero();
    assertThatThrownBy(() -> standIn.setUsedBytes(NAMESPACE, "used", -1)).isInstanceOf(IllegalArgumentException.class);

    // Deleted: forgotten.
    deleteClaimAndWait("used");
    await().atMost(PATIENCE).until(() -> standIn.usedBytes(NAMESPACE, "used") == 0);

    // Created anew under the same name: what was set for the old one is forgotten, the new one's is kept.
    createClaim("used", SEED_CLASS, "1Gi");
    assertThat(standIn.setUsedBytes(NAMESPACE, "used", 42)).isTrue();
    deleteClaimAndWait("used");
    createClaim("used", SEED_CLASS, "1Gi");
    await().atMost(PATIENCE).until(() -> standIn.usedBytes(NAMESPACE, "used") == 0);
    assertThat(standIn.setUsedBytes(NAMESPACE, "used", 7)).isTrue();
    assertThat(standIn.usedBytes(NAMESPACE, "used")).isEqualTo(7);
  }

  // --- helpers ---------------------------------------------------------------------------------------

  private static PersistentVolumeClaim createClaim(String name, String storageClass, String size) {
    return client.resource(new PersistentVolumeClaimBuilder().withNewMetadata().withName(name).withNamespace(NAMESPACE)
        .endMetadata().withNewSpec().withAccessModes("ReadWriteOnce").withStorageClassName(storageClass)
        .withNewResources().addToRequests("storage", new Quantity(size)).endResources().endSpec().build()).create();
  }

  private static PersistentVolumeClaim claim(String name) {
    return client.persistentVolumeClaims().inNamespace(NAMESPACE).withName(name).get();
  }

  private static PersistentVolumeClaim awaitBound(String name) {
    await().atMost(PATIENCE).untilAsserted(() -> assertThat(claim(name).getStatus().getPhase()).isEqualTo("Bound"));
    return claim(name);
  }

  private static void deleteClaimAndWait(String name) {
    client.persistentVolumeClaims().inNamespace(NAMESPACE).withName(name).delete();
    await().atMost(PATIENCE).until(() -> claim(name) == null);
  }

  /** The events about the current claim of that name. */
  private static List<Event> events(String claim) {
    String uid = claim(claim).getMetadata().getUid();
    return client.v1().events().inNamespace(NAMESPACE).list().getItems().stream()
        .filter(e -> uid.equals(e.getInvolvedObject().getUid())).toList();
  }

  private static CSIStorageCapacity pool() {
    return client.storage().v1().csiStorageCapacities().inNamespace(NAMESPACE).withName(SMALL_POOL).get();
  }

  private static <V> Map<String, V> orEmpty(Map<String, V> map) {
    return map == null ? Map.of() : map;
  }

  private static void createIfAbsent(HasMetadata object) {
    try {
      client.resource(object).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
    }
  }
}
