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
 * Storage against the simulator, with the fabric8 client: StorageClasses and CSIStorageCapacity from
 * the seed, and the nodes' disks.
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
