package io.gshare.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.CSIStorageCapacity;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Storage against the simulator, with the fabric8 client and raw HTTP: StorageClasses and
 * CSIStorageCapacity from the seed, claims provisioned and bound on the kubelet tick, expansion (and
 * its refusals), the pvc-protection finalizer, reclaim, and the kubelet's stats summary through the node
 * proxy. Every test works in a namespace of its own.
 */
class StorageSimTest {

  private static final String CLASS = "gshare-data";
  private static final String DRIVER = "org.democratic-csi.gshare-nfs";
  private static final Duration WAIT = Duration.ofSeconds(5);

  private static SimulatedCluster cluster;
  private static KubernetesClient client;
  private static final HttpClient http = HttpClient.newHttpClient();
  private static final ObjectMapper json = new ObjectMapper();

  @BeforeAll
  static void start() {
    cluster = SimulatedCluster.start(
        SimulatedCluster.defaultSeed(),
        new SimulatedCluster.Options("storage", "127.0.0.1", 0, Duration.ofMillis(50), Duration.ofMillis(100)));
    client = cluster.newClient();
  }

  @AfterAll
  static void stop() {
    client.close();
    cluster.close();
  }

  // --- what the seed publishes ------------------------------------------------------------------------

  @Test
  void seedsTheDefaultStorageClassItsCapacityAndNodeDisks() {
    StorageClass data = client.storage().v1().storageClasses().withName(CLASS).get();
    assertThat(data.getProvisioner()).isEqualTo(DRIVER);
    assertThat(data.getAllowVolumeExpansion()).isTrue();
    assertThat(data.getReclaimPolicy()).isEqualTo("Delete");
    assertThat(data.getVolumeBindingMode()).isEqualTo("Immediate");
    assertThat(data.getMetadata().getAnnotations()).containsEntry("storageclass.kubernetes.io/is-default-class", "true");

    List<CSIStorageCapacity> capacities = client.storage().v1().csiStorageCapacities().inAnyNamespace().list().getItems();
    assertThat(capacities).hasSize(1);
    CSIStorageCapacity capacity = capacities.get(0);
    assertThat(capacity.getStorageClassName()).isEqualTo(CLASS);
    assertThat(capacity.getMetadata().getNamespace()).isEqualTo("democratic-csi");
    assertThat(Quantity.getAmountInBytes(capacity.getCapacity())).isEqualByComparingTo(gib(2000));
    assertThat(Quantity.getAmountInBytes(capacity.getMaximumVolumeSize())).isEqualByComparingTo(gib(2000));
    assertThat(capacity.getNodeTopology()).as("an NFS share reaches every node").isNotNull();
    assertThat(capacity.getMetadata().getLabels()).containsEntry("csi.storage.k8s.io/drivername", DRIVER);

    for (Node node : client.nodes().list().getItems()) {
      assertThat(Quantity.getAmountInBytes(node.getStatus().getCapacity().get("ephemeral-storage")))
          .as(node.getMetadata().getName()).isEqualByComparingTo(gib(500));
    }
    assertThat(client.nodes().withLabel("gshare.io/role", "storage").list().getItems())
        .extracting(n -> n.getMetadata().getName()).containsExactly("sim-cpu-0");
  }

  @Test
  void readsStorageClassesAndNodeDisksFromASeedAndOldSeedsStillLoad() {
    SimSeed seed = SimulatedCluster.readSeed(new ByteArrayInputStream("""
        nodes:
          - name: disk-node
            gpuMode: storage
            ephemeralStorage: 750Gi
        storageClasses:
          - name: local-path
            provisioner: rancher.io/local-path
            volumeBindingMode: WaitForFirstConsumer
            capacities:
              - { capacity: 100Gi, nodeTopology: { matchLabels: { kubernetes.io/hostname: disk-node } } }
        """.getBytes(StandardCharsets.UTF_8)));
    SimSeed.StorageClassSpec localPath = seed.storageClasses().get(0);
    assertThat(localPath.expandable()).isFalse();
    assertThat(localPath.isDefault()).isFalse();
    assertThat(localPath.reclaimPolicy()).isEqualTo("Delete");
    assertThat(localPath.capacities().get(0).namespace()).isEqualTo("kube-system");
    Node node = SimObjects.node("x", seed.nodes().get(0), 0, "v1.36.0", Instant.now());
    assertThat(node.getStatus().getCapacity().get("ephemeral-storage")).isEqualTo(new Quantity("750Gi"));
    assertThat(node.getMetadata().getLabels()).containsEntry("gshare.io/role", "storage");
    CSIStorageCapacity published = (CSIStorageCapacity) SimObjects.storage(seed.storageClasses()).stream()
        .filter(o -> o instanceof CSIStorageCapacity).findFirst().orElseThrow();
    assertThat(published.getNodeTopology().getMatchLabels()).containsEntry("kubernetes.io/hostname", "disk-node");
    assertThat(published.getMaximumVolumeSize()).isNull();

    SimSeed old = SimulatedCluster.readSeed(new ByteArrayInputStream(
        "nodes:\n  - { name: n1, gpuMode: cpu }\n".getBytes(StandardCharsets.UTF_8)));
    assertThat(old.storageClasses()).isEmpty();
    assertThat(old.nodes().get(0).ephemeralStorage()).isEqualTo("500Gi");
    assertThat(new SimSeed("v1.36.0", List.of(), null).storageClasses()).isEmpty();
    assertThatThrownBy(() -> new SimSeed.NodeSpec("n2", "cpu", null, Map.of(), "lots"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ephemeralStorage");
  }

  // --- provisioning -----------------------------------------------------------------------------------

  @Test
  void aClaimOfAnExistingClassIsBoundToANewVolume() {
    String ns = "st-bind";
    create(claim(ns, "data", CLASS, "5Gi"));

    PersistentVolumeClaim bound = awaitBound(ns, "data");
    String uid = bound.getMetadata().getUid();
    assertThat(bound.getStatus().getCapacity().get("storage")).isEqualTo(new Quantity("5Gi"));
    assertThat(bound.getStatus().getAccessModes()).containsExactly("ReadWriteOnce");
    assertThat(bound.getSpec().getVolumeName()).isEqualTo("pvc-" + uid);
    assertThat(bound.getMetadata().getFinalizers()).contains("kubernetes.io/pvc-protection");
    assertThat(bound.getMetadata().getAnnotations()).containsEntry("pv.kubernetes.io/bind-completed", "yes")
        .containsEntry("volume.kubernetes.io/storage-provisioner", DRIVER);

    PersistentVolume volume = client.persistentVolumes().withName("pvc-" + uid).get();
    assertThat(volume.getSpec().getClaimRef().getName()).isEqualTo("data");
    assertThat(volume.getSpec().getClaimRef().getNamespace()).isEqualTo(ns);
    assertThat(volume.getSpec().getClaimRef().getUid()).isEqualTo(uid);
    assertThat(volume.getSpec().getCapacity().get("storage")).isEqualTo(new Quantity("5Gi"));
    assertThat(volume.getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Delete");
    assertThat(volume.getSpec().getStorageClassName()).isEqualTo(CLASS);
    assertThat(volume.getSpec().getCsi().getDriver()).isEqualTo(DRIVER);
    assertThat(volume.getStatus().getPhase()).isEqualTo("Bound");
    assertThat(events(ns, "data")).extracting(Event::getReason).contains("ProvisioningSucceeded");
  }

  @Test
  void aClaimWithoutAClassGetsTheDefaultOne() {
    String ns = "st-default";
    PersistentVolumeClaim created = create(claim(ns, "plain", null, "1Gi"));
    assertThat(created.getSpec().getStorageClassName()).isEqualTo(CLASS);
    assertThat(created.getStatus().getPhase()).isEqualTo("Pending");
    assertThat(awaitBound(ns, "plain").getSpec().getVolumeName()).startsWith("pvc-");
  }

  @Test
  void aClaimOfAMissingClassStaysPendingUntilTheClassExists() throws Exception {
    String ns = "st-missing";
    create(claim(ns, "orphan", "st-no-such-class", "1Gi"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(events(ns, "orphan"))
        .anyMatch(e -> "ProvisioningFailed".equals(e.getReason()) && "Warning".equals(e.getType())
            && e.getMessage().contains("\"st-no-such-class\" not found")));
    Thread.sleep(300); // six ticks
    PersistentVolumeClaim waiting = get(ns, "orphan");
    assertThat(waiting.getStatus().getPhase()).isEqualTo("Pending");
    assertThat(waiting.getSpec().getVolumeName()).isNull();
    assertThat(client.persistentVolumes().withName("pvc-" + waiting.getMetadata().getUid()).get()).isNull();

    client.storage().v1().storageClasses().resource(storageClass("st-no-such-class", false, "Delete", null)).create();
    assertThat(awaitBound(ns, "orphan").getStatus().getCapacity().get("storage")).isEqualTo(new Quantity("1Gi"));
  }

  @Test
  void waitForFirstConsumerBindsOnceAPodMountsTheClaim() throws Exception {
    String ns = "st-wffc";
    client.storage().v1().storageClasses().resource(storageClass("st-local", false, "Delete", "WaitForFirstConsumer")).create();
    create(claim(ns, "scratch", "st-local", "1Gi"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(events(ns, "scratch")).extracting(Event::getReason)
        .contains("WaitForFirstConsumer"));
    assertThat(get(ns, "scratch").getStatus().getPhase()).isEqualTo("Pending");

    client.pods().inNamespace(ns).resource(pod(ns, "consumer", "sim-a100-0", "scratch")).create();
    awaitBound(ns, "scratch");
  }

  @Test
  void aClaimWithoutASizeOrAccessModeIsInvalid() {
    PersistentVolumeClaim sizeless = new PersistentVolumeClaimBuilder(claim("st-invalid", "sizeless", CLASS, "1Gi"))
        .editSpec().withResources(null).withAccessModes(List.of()).endSpec().build();
    assertThatThrownBy(() -> create(sizeless))
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(422);
          assertThat(e.getMessage()).contains("spec.resources[storage]: Required value")
              .contains("spec.accessModes: Required value");
        });
    assertThat(get("st-invalid", "sizeless")).isNull();
  }

  // --- expansion --------------------------------------------------------------------------------------

  @Test
  void raisingTheRequestOfAnExpandableClaimRaisesItsCapacityWhicheverWayItIsWritten() {
    String ns = "st-expand";
    create(claim(ns, "grow", CLASS, "1Gi"));
    String volume = awaitBound(ns, "grow").getSpec().getVolumeName();

    PersistentVolumeClaim current = get(ns, "grow");
    current.getSpec().getResources().getRequests().put("storage", new Quantity("2Gi"));
    client.persistentVolumeClaims().inNamespace(ns).resource(current).update();
    awaitCapacity(ns, "grow", volume, "2Gi");

    client.persistentVolumeClaims().inNamespace(ns).withName("grow").patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"3Gi\"}}}}");
    awaitCapacity(ns, "grow", volume, "3Gi");

    client.persistentVolumeClaims().inNamespace(ns).withName("grow").edit(c -> new PersistentVolumeClaimBuilder(c)
        .editSpec().editResources().addToRequests("storage", new Quantity("4Gi")).endResources().endSpec().build());
    awaitCapacity(ns, "grow", volume, "4Gi");

    // server-side apply of the claim as first written, bigger: the volume binding it did not name stays
    PersistentVolumeClaim applied = claim(ns, "grow", CLASS, "5Gi");
    client.persistentVolumeClaims().inNamespace(ns).resource(applied).fieldManager("gshare").forceConflicts().serverSideApply();
    awaitCapacity(ns, "grow", volume, "5Gi");

    PersistentVolumeClaim grown = get(ns, "grow");
    assertThat(grown.getSpec().getVolumeName()).isEqualTo(volume);
    assertThat(grown.getStatus().getPhase()).isEqualTo("Bound");
    assertThat(grown.getStatus().getAllocatedResources().get("storage")).isEqualTo(new Quantity("5Gi"));
    assertThat(grown.getStatus().getConditions()).noneMatch(c -> "Resizing".equals(c.getType()));
    assertThat(events(ns, "grow")).filteredOn(e -> "VolumeResizeSuccessful".equals(e.getReason())).hasSize(4);
  }

  @Test
  void raisingTheRequestIsForbiddenWhenTheClassDoesNotAllowExpansion() {
    String ns = "st-fixed";
    client.storage().v1().storageClasses().resource(storageClass("st-fixed", false, "Delete", null)).create();
    create(claim(ns, "fixed", "st-fixed", "1Gi"));
    awaitBound(ns, "fixed");

    PersistentVolumeClaim bigger = get(ns, "fixed");
    bigger.getSpec().getResources().getRequests().put("storage", new Quantity("2Gi"));
    assertForbiddenResize(() -> client.persistentVolumeClaims().inNamespace(ns).resource(bigger).update());
    assertForbiddenResize(() -> client.persistentVolumeClaims().inNamespace(ns).withName("fixed")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"2Gi\"}}}}"));
    assertForbiddenResize(() -> client.persistentVolumeClaims().inNamespace(ns).withName("fixed").edit(c ->
        new PersistentVolumeClaimBuilder(c).editSpec().editResources().addToRequests("storage", new Quantity("2Gi"))
            .endResources().endSpec().build()));

    PersistentVolumeClaim unchanged = get(ns, "fixed");
    assertThat(unchanged.getSpec().getResources().getRequests().get("storage")).isEqualTo(new Quantity("1Gi"));
    assertThat(unchanged.getStatus().getCapacity().get("storage")).isEqualTo(new Quantity("1Gi"));

    // other changes to such a claim are fine
    client.persistentVolumeClaims().inNamespace(ns).withName("fixed").edit(c -> new PersistentVolumeClaimBuilder(c)
        .editMetadata().addToLabels("gshare.io/volume-id", "vol_1").endMetadata().build());
    assertThat(get(ns, "fixed").getMetadata().getLabels()).containsEntry("gshare.io/volume-id", "vol_1");
  }

  @Test
  void shrinkingAClaimAndResizingAnUnboundOneAreInvalid() {
    String ns = "st-shrink";
    create(claim(ns, "big", CLASS, "2Gi"));
    awaitBound(ns, "big");
    PersistentVolumeClaim smaller = get(ns, "big");
    smaller.getSpec().getResources().getRequests().put("storage", new Quantity("1Gi"));
    assertThatThrownBy(() -> client.persistentVolumeClaims().inNamespace(ns).resource(smaller).update())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(422);
          assertThat(e.getMessage()).contains("spec.resources.requests.storage: Forbidden: field can not be less than status.capacity");
        });
    assertThat(get(ns, "big").getSpec().getResources().getRequests().get("storage")).isEqualTo(new Quantity("2Gi"));

    create(claim(ns, "unbound", "st-never-there", "1Gi"));
    assertThatThrownBy(() -> client.persistentVolumeClaims().inNamespace(ns).withName("unbound")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"2Gi\"}}}}"))
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(422);
          assertThat(e.getMessage()).contains("spec is immutable after creation");
        });
  }

  // --- deletion ---------------------------------------------------------------------------------------

  @Test
  void deletingAMountedClaimWaitsUntilNoPodMountsIt() throws Exception {
    String ns = "st-protect";
    create(claim(ns, "home", CLASS, "1Gi"));
    String volume = awaitBound(ns, "home").getSpec().getVolumeName();
    client.pods().inNamespace(ns).resource(pod(ns, "notebook", "sim-a100-0", "home")).create();
    awaitRunning(ns, "notebook");

    List<String> seen = new CopyOnWriteArrayList<>();
    try (Watch ignored = client.persistentVolumeClaims().inNamespace(ns).withName("home").watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, PersistentVolumeClaim resource) {
        seen.add(action.name());
      }

      @Override
      public void onClose(WatcherException cause) {}
    })) {
      client.persistentVolumeClaims().inNamespace(ns).withName("home").delete();
      Thread.sleep(300); // six ticks
      PersistentVolumeClaim terminating = get(ns, "home");
      assertThat(terminating).as("kept while the pod mounts it").isNotNull();
      assertThat(terminating.getMetadata().getDeletionTimestamp()).isNotNull();
      assertThat(terminating.getStatus().getPhase()).isEqualTo("Bound");
      assertThat(client.persistentVolumes().withName(volume).get()).isNotNull();

      client.pods().inNamespace(ns).withName("notebook").delete();
      await().atMost(WAIT).untilAsserted(() -> {
        assertThat(get(ns, "home")).isNull();
        assertThat(seen).contains("DELETED");
        assertThat(client.persistentVolumes().withName(volume).get()).as("reclaim policy Delete").isNull();
      });
    }
  }

  @Test
  void aClaimNoPodMountsIsDeletedAtOnceAndARetainedVolumeIsReleased() {
    String ns = "st-free";
    client.storage().v1().storageClasses().resource(storageClass("st-retain", false, "Retain", null)).create();
    create(claim(ns, "kept", "st-retain", "1Gi"));
    create(claim(ns, "dropped", CLASS, "1Gi"));
    String kept = awaitBound(ns, "kept").getSpec().getVolumeName();
    String dropped = awaitBound(ns, "dropped").getSpec().getVolumeName();
    // a pod that mounts it but is bound to no node does not hold it (the pvc-protection controller's rule)
    client.pods().inNamespace(ns).resource(new PodBuilder(pod(ns, "unscheduled", null, "dropped"))
        .editSpec().addToNodeSelector("kubernetes.io/hostname", "no-such-node").endSpec().build()).create();

    client.persistentVolumeClaims().inNamespace(ns).withName("kept").delete();
    client.persistentVolumeClaims().inNamespace(ns).withName("dropped").delete();
    assertThat(get(ns, "kept")).isNull();
    assertThat(get(ns, "dropped")).isNull();
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(client.persistentVolumes().withName(dropped).get()).isNull();
      assertThat(client.persistentVolumes().withName(kept).get().getStatus().getPhase()).isEqualTo("Released");
    });
  }

  // --- the kubelet's stats summary --------------------------------------------------------------------

  @Test
  void theStatsSummaryThroughTheNodeProxyShowsTheBytesInUse() throws Exception {
    String ns = "st-stats";
    create(claim(ns, "home-1", CLASS, "10Gi"));
    create(claim(ns, "home-2", CLASS, "2Gi"));
    awaitBound(ns, "home-1");
    awaitBound(ns, "home-2");
    client.pods().inNamespace(ns).resource(pod(ns, "reader", "sim-h100-0", "home-1")).create();
    client.pods().inNamespace(ns).resource(pod(ns, "writer", "sim-h100-0", "home-2")).create();
    awaitRunning(ns, "reader");
    awaitRunning(ns, "writer");

    HttpResponse<String> set = send("PUT", "/sim/v1/namespaces/" + ns + "/persistentvolumeclaims/home-1/used-bytes",
        "{\"used_bytes\": 3221225472}");
    assertThat(set.statusCode()).isEqualTo(200);
    assertThat(cluster.setVolumeUsedBytes(ns, "home-2", 1_000_000)).isTrue();

    JsonNode summary = json.readTree(send("GET", "/api/v1/nodes/sim-h100-0/proxy/stats/summary", null).body());
    assertThat(summary.path("node").path("nodeName").asText()).isEqualTo("sim-h100-0");
    JsonNode first = volumeOf(summary, ns, "reader");
    assertThat(first.path("name").asText()).isEqualTo("data");
    assertThat(first.path("pvcRef").path("name").asText()).isEqualTo("home-1");
    assertThat(first.path("pvcRef").path("namespace").asText()).isEqualTo(ns);
    assertThat(first.path("usedBytes").asLong()).isEqualTo(3221225472L);
    assertThat(first.path("capacityBytes").asLong()).isEqualTo(10L << 30);
    assertThat(first.path("availableBytes").asLong()).isEqualTo((10L << 30) - 3221225472L);
    JsonNode second = volumeOf(summary, ns, "writer");
    assertThat(second.path("usedBytes").asLong()).isEqualTo(1_000_000);
    assertThat(second.path("capacityBytes").asLong()).isEqualTo(2L << 30);

    // the fabric8 client reads it the same way, and another node does not list these pods
    String raw = client.raw(cluster.url() + "/api/v1/nodes/sim-a100-0/proxy/stats/summary");
    assertThat(raw).contains("\"nodeName\":\"sim-a100-0\"").doesNotContain("\"reader\"");
    assertThat(json.readTree(send("GET", "/sim/v1/namespaces/" + ns + "/persistentvolumeclaims/home-1/used-bytes", null)
        .body()).path("used_bytes").asLong()).isEqualTo(3221225472L);

    assertThat(send("GET", "/api/v1/nodes/no-such-node/proxy/stats/summary", null).statusCode()).isEqualTo(404);
    assertThat(send("PUT", "/sim/v1/namespaces/" + ns + "/persistentvolumeclaims/no-such-claim/used-bytes",
        "{\"used_bytes\": 1}").statusCode()).isEqualTo(404);
    assertThat(send("PUT", "/sim/v1/namespaces/" + ns + "/persistentvolumeclaims/home-1/used-bytes",
        "{\"used_bytes\": -1}").statusCode()).isEqualTo(400);
  }

  // --- discovery --------------------------------------------------------------------------------------

  @Test
  void discoveryListsTheStorageResources() throws Exception {
    String storage = send("GET", "/apis/storage.k8s.io/v1", null).body();
    assertThat(storage).contains("\"name\":\"storageclasses\"").contains("\"name\":\"csistoragecapacities\"");
    assertThat(send("GET", "/apis", null).body()).contains("storage.k8s.io/v1");
    assertThat(send("GET", "/api/v1", null).body()).contains("\"name\":\"persistentvolumeclaims\"")
        .contains("\"name\":\"persistentvolumes\"").contains("\"name\":\"persistentvolumeclaims/status\"")
        .contains("\"name\":\"nodes/proxy\"");
    assertThat(send("GET", "/apis/storage.k8s.io/v1/storageclasses", null).body())
        .startsWith("{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClassList\"");
    assertThat(client.getApiResources("storage.k8s.io/v1").getResources())
        .extracting(r -> r.getName()).contains("storageclasses", "csistoragecapacities");
  }

  // --- helpers ----------------------------------------------------------------------------------------

  private static java.math.BigDecimal gib(long n) {
    return java.math.BigDecimal.valueOf(n).multiply(java.math.BigDecimal.valueOf(1L << 30));
  }

  private static PersistentVolumeClaim claim(String ns, String name, String storageClass, String size) {
    return new PersistentVolumeClaimBuilder()
        .withNewMetadata().withName(name).withNamespace(ns).endMetadata()
        .withNewSpec()
        .withAccessModes("ReadWriteOnce")
        .withStorageClassName(storageClass)
        .withNewResources().addToRequests("storage", new Quantity(size)).endResources()
        .endSpec()
        .build();
  }

  private static StorageClass storageClass(String name, boolean expandable, String reclaimPolicy, String bindingMode) {
    return new StorageClassBuilder().withNewMetadata().withName(name).endMetadata()
        .withProvisioner("example.com/" + name).withAllowVolumeExpansion(expandable)
        .withReclaimPolicy(reclaimPolicy).withVolumeBindingMode(bindingMode).build();
  }

  private static Pod pod(String ns, String name, String node, String claim) {
    return new PodBuilder()
        .withNewMetadata().withName(name).withNamespace(ns).endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .addNewContainer().withName("main").withImage("jupyter/base-notebook")
        .addNewVolumeMount().withName("data").withMountPath("/home/jovyan").endVolumeMount().endContainer()
        .addNewVolume().withName("data").withNewPersistentVolumeClaim().withClaimName(claim).endPersistentVolumeClaim().endVolume()
        .endSpec()
        .build();
  }

  private static PersistentVolumeClaim create(PersistentVolumeClaim claim) {
    return client.persistentVolumeClaims().inNamespace(claim.getMetadata().getNamespace()).resource(claim).create();
  }

  private static PersistentVolumeClaim get(String ns, String name) {
    return client.persistentVolumeClaims().inNamespace(ns).withName(name).get();
  }

  private static PersistentVolumeClaim awaitBound(String ns, String name) {
    await().atMost(WAIT).until(() -> {
      PersistentVolumeClaim c = get(ns, name);
      return c != null && c.getStatus() != null && "Bound".equals(c.getStatus().getPhase());
    });
    return get(ns, name);
  }

  private static void awaitRunning(String ns, String pod) {
    await().atMost(WAIT).until(() -> {
      Pod p = client.pods().inNamespace(ns).withName(pod).get();
      return p != null && p.getStatus() != null && "Running".equals(p.getStatus().getPhase());
    });
  }

  private static void awaitCapacity(String ns, String name, String volume, String size) {
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(get(ns, name).getStatus().getCapacity().get("storage")).isEqualTo(new Quantity(size));
      assertThat(client.persistentVolumes().withName(volume).get().getSpec().getCapacity().get("storage"))
          .isEqualTo(new Quantity(size));
    });
  }

  private static void assertForbiddenResize(Runnable write) {
    assertThatThrownBy(write::run).isInstanceOfSatisfying(KubernetesClientException.class, e -> {
      assertThat(e.getCode()).isEqualTo(403);
      assertThat(e.getMessage()).contains("only dynamically provisioned pvc can be resized and the storageclass that "
          + "provisions the pvc must support resize");
    });
  }

  private static List<Event> events(String ns, String claim) {
    return client.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> claim.equals(e.getInvolvedObject().getName())).toList();
  }

  private static JsonNode volumeOf(JsonNode summary, String ns, String pod) {
    for (JsonNode entry : summary.path("pods")) {
      if (pod.equals(entry.path("podRef").path("name").asText()) && ns.equals(entry.path("podRef").path("namespace").asText())) {
        assertThat(entry.path("volume")).hasSize(1);
        return entry.path("volume").get(0);
      }
    }
    throw new AssertionError("pod " + ns + "/" + pod + " is not in the summary: " + summary);
  }

  private static HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(cluster.url() + path)).header("Content-Type", "application/json");
    request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
