package io.gshare.sim.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gshare.sim.SimSeed;
import io.gshare.workflows.kube.LabelKeys;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link KubeletStandIn} behind the real apiserver's node proxy ({@link LocalKubernetes}, KWOK nodes of its own):
 * the stats summary a claim's bytes are read from (fabric8 and {@code kubectl get --raw}), the checkpoint answered
 * on a checkpoint-ready node for a running pod and refused in the kubelet's words otherwise, the published port
 * kept through KWOK's own status writes, a node added later served and a deleted one no longer, only the
 * apiserver's client certificate accepted, and why the Hostname address is rewritten (the apiserver refuses
 * loopback).
 */
class KubeletStandInIT {

  private static final String NS = "kubelet-it";
  private static final String READY_NODE = "kubelet-h100-0";
  private static final String PLAIN_NODE = "kubelet-h100-1";
  private static final String HEARTBEAT_NODE = "kubelet-h100-2";
  private static final String LATE_NODE = "kubelet-late-0";
  private static final String LOOPBACK_NODE = "kubelet-loopback-0";
  private static final String KUBELET_VERSION = "v1.37.2";
  private static final long GIB = 1L << 30;
  private static final ObjectMapper JSON = new ObjectMapper();

  private static LocalKubernetes kube;
  private static KubernetesClient client;
  /** The admin without fabric8's retries: it retries every answer of 500 and up (ten times, backing off). */
  private static KubernetesClient once;
  private static GpuNodes nodes;
  private static KubeletStandIn kubelets;
  private static final Map<String, Long> used = new ConcurrentHashMap<>();

  @BeforeAll
  static void start() {
    kube = LocalKubernetes.shared();
    client = kube.newClient();
    once = new KubernetesClientBuilder().withConfig(new ConfigBuilder(client.getConfiguration())
        .withRequestRetryBackoffLimit(0).build()).build();
    nodes = new GpuNodes(client, "kubelet-it");
    nodes.add(h100(READY_NODE, Map.of(LabelKeys.CRIU, LabelKeys.READY, LabelKeys.CUDA_CHECKPOINT, LabelKeys.READY)),
        KUBELET_VERSION);
    nodes.add(h100(PLAIN_NODE, Map.of()), KUBELET_VERSION);
    nodes.add(h100(HEARTBEAT_NODE, Map.of()), KUBELET_VERSION);
    nodes.awaitReady(List.of(READY_NODE, PLAIN_NODE, HEARTBEAT_NODE), Duration.ofSeconds(60));
    kubelets = KubeletStandIn.start(client, kube, (namespace, claim) -> used.getOrDefault(namespace + "/" + claim, 0L),
        Duration.ofMillis(200));
    client.resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).serverSideApply();
    await().atMost(Duration.ofSeconds(60)).until(() ->
        client.serviceAccounts().inNamespace(NS).withName("default").get() != null);
    for (String node : List.of(READY_NODE, PLAIN_NODE, HEARTBEAT_NODE)) {
      awaitPublished(node);
    }
  }

  @AfterAll
  static void stop() {
    if (kubelets != null) {
      kubelets.close();
    }
    if (client != null) {
      client.namespaces().withName(NS).delete();
      client.persistentVolumes().withName("kubelet-it-data-0").delete();
      for (String node : List.of(READY_NODE, PLAIN_NODE, HEARTBEAT_NODE, LATE_NODE, LOOPBACK_NODE)) {
        client.nodes().withName(node).delete();
      }
      client.close();
      once.close();
    }
  }

  @Test
  void theStatsSummaryThroughTheNodeProxyCarriesAMountedClaimsBytes() throws Exception {
    // A volume bound in advance to its claim: the real PV controller binds them and writes the claim's capacity.
    client.resource(new PersistentVolumeBuilder().withNewMetadata().withName("kubelet-it-data-0").endMetadata()
        .withNewSpec().withCapacity(Map.of("storage", new Quantity("10Gi"))).withAccessModes("ReadWriteOnce")
        .withStorageClassName("").withNewHostPath().withPath("/var/lib/gshare/kubelet-it").endHostPath()
        .withNewClaimRef().withNamespace(NS).withName("data-0").endClaimRef().endSpec().build()).create();
    client.resource(new PersistentVolumeClaimBuilder().withNewMetadata().withName("data-0").withNamespace(NS)
        .endMetadata().withNewSpec().withAccessModes("ReadWriteOnce").withStorageClassName("")
        .withVolumeName("kubelet-it-data-0").withNewResources().addToRequests("storage", new Quantity("10Gi"))
        .endResources().endSpec().build()).create();
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      PersistentVolumeClaim claim = client.persistentVolumeClaims().inNamespace(NS).withName("data-0").get();
      assertThat(claim.getStatus().getPhase()).isEqualTo("Bound");
      assertThat(claim.getStatus().getCapacity()).containsEntry("storage", new Quantity("10Gi"));
    });
    runPod("with-data", READY_NODE, "data-0");
    runPod("elsewhere", PLAIN_NODE, null);
    used.put(NS + "/data-0", 3 * GIB);

    String path = "/api/v1/nodes/" + READY_NODE + "/proxy/stats/summary";
    JsonNode summary = JSON.readTree(client.raw(kube.url() + path));
    assertThat(summary.path("node").path("nodeName").asText()).isEqualTo(READY_NODE);
    JsonNode pod = pod(summary, "with-data");
    assertThat(pod.path("podRef").path("namespace").asText()).isEqualTo(NS);
    assertThat(pod(summary, "elsewhere")).as("a pod of another node").isNull();
    JsonNode volume = pod.path("volume").get(0);
    assertThat(volume.path("name").asText()).isEqualTo("data");
    assertThat(volume.path("pvcRef").path("name").asText()).isEqualTo("data-0");
    assertThat(volume.path("pvcRef").path("namespace").asText()).isEqualTo(NS);
    assertThat(volume.path("usedBytes").asLong()).isEqualTo(3 * GIB);
    assertThat(volume.path("capacityBytes").asLong()).isEqualTo(10 * GIB);
    assertThat(volume.path("availableBytes").asLong()).isEqualTo(7 * GIB);

    // kubectl's way through the same proxy; the bytes are asked for at each request.
    used.put(NS + "/data-0", 5 * GIB);
    JsonNode again = JSON.readTree(kubectl("get", "--raw", path));
    assertThat(pod(again, "with-data").path("volume").get(0).path("usedBytes").asLong()).isEqualTo(5 * GIB);
  }

  @Test
  void aRunningPodOnACheckpointReadyNodeIsCheckpointed() {
    runPod("to-checkpoint", READY_NODE, null);
    int before = kubelets.checkpointsTaken();

    // As SessionClusterActivitiesImpl asks and reads it.
    String answer = client.raw(kube.url() + "/api/v1/nodes/" + READY_NODE + "/proxy/checkpoint/" + NS
        + "/to-checkpoint/main?timeout=600", "POST", null);
    Object items = client.getKubernetesSerialization().unmarshal(answer, Map.class).get("items");

    assertThat(items).isInstanceOf(List.class);
    assertThat((List<?>) items).singleElement().asString().matches(
        "/var/lib/kubelet/checkpoints/checkpoint-to-checkpoint_" + NS
            + "-main-\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z\\.tar");
    assertThat(kubelets.checkpointsTaken()).isEqualTo(before + 1);
  }

  @Test
  void checkpointsAreRefusedAsTheKubeletRefusesThem() throws Exception {
    runPod("stays-on-ready", READY_NODE, null);
    runPod("on-plain", PLAIN_NODE, null);
    String finished = finishedJobPod("finished", READY_NODE);
    int before = kubelets.checkpointsTaken();

    assertThat(post(PLAIN_NODE, "checkpoint/" + NS + "/stays-on-ready/main"))
        .as("the pod runs on another node").isEqualTo(new Answer(404, "pod does not exist"));
    // What SessionClusterActivitiesImpl's raw POST sees of a refusal: fabric8 7.5 throws, with the kubelet's code.
    assertThatThrownBy(() -> client.raw(checkpointUrl(PLAIN_NODE, "stays-on-ready"), "POST", null))
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(404));
    assertThat(post(READY_NODE, "checkpoint/" + NS + "/nobody/main")).isEqualTo(new Answer(404, "pod does not exist"));
    assertThat(post(READY_NODE, "checkpoint/" + NS + "/stays-on-ready/sidecar"))
        .isEqualTo(new Answer(404, "container sidecar does not exist"));
    assertThat(post(READY_NODE, "checkpoint/" + NS + "/stays-on-ready/main?timeout=soon"))
        .isEqualTo(new Answer(404, "cannot parse value of timeout parameter"));
    assertThat(post(READY_NODE, "checkpoint/" + NS + "/" + finished + "/main")).as("the pod is not running")
        .isEqualTo(new Answer(500, "checkpointing of " + NS + "/" + finished + "/main failed (container main not found)"));
    assertThat(post(PLAIN_NODE, "checkpoint/" + NS + "/on-plain/main")).as("no CRIU and cuda-checkpoint")
        .isEqualTo(new Answer(500, "checkpointing of " + NS + "/on-plain/main failed (" + KubeletStandIn.NOT_SUPPORTED + ")"));
    assertThatThrownBy(() -> once.raw(checkpointUrl(PLAIN_NODE, "on-plain"), "POST", null))
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(500));
    assertThat(send("GET", READY_NODE, "checkpoint/" + NS + "/stays-on-ready/main").code()).isEqualTo(405);

    assertThat(kubelets.checkpointsTaken()).isEqualTo(before);
  }

  @Test
  void thePublishedPortSurvivesKwoksStatusWrites() throws Exception {
    // KWOK's node stages (node-initialize and the lease heartbeat) write daemonEndpoints only with a node port.
    String stages = Files.readString(kube.tools().kwokStages());
    int written = count(stages, Pattern.compile("daemonEndpoints:"));
    assertThat(written).isPositive();
    assertThat(count(stages, Pattern.compile("\\{\\{ with NodePort }}\\s*\\n\\s*daemonEndpoints:"))).isEqualTo(written);

    // The heartbeat stage fires 10 minutes apart; node-initialize writes the same status at once when the node is
    // not Ready. Every version of the node from then on, KWOK's write included, must keep what was published.
    int port = kubelets.port(HEARTBEAT_NODE).orElseThrow();
    List<Node> seen = new CopyOnWriteArrayList<>();
    try (Watch watch = client.nodes().withName(HEARTBEAT_NODE).watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, Node node) {
        seen.add(node);
      }

      @Override
      public void onClose(WatcherException cause) {}
    })) {
      client.nodes().withName(HEARTBEAT_NODE).subresource("status").patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
          "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\",\"reason\":\"KubeletStandInIT\","
              + "\"message\":\"makes KWOK write the node's status again\"}]}}");
      await().atMost(Duration.ofSeconds(60)).until(() -> kwoksWrite(seen) != null);
    }
    List<Node> fromTrigger = seen.subList(firstNotReady(seen), seen.size());
    Node kwoks = kwoksWrite(seen);
    assertThat(kwoks.getMetadata().getManagedFields()).anySatisfy(f -> assertThat(f.getManager()).contains("kwok"));
    for (Node version : fromTrigger) {
      assertThat(version.getStatus().getDaemonEndpoints().getKubeletEndpoint().getPort())
          .as("port at resourceVersion %s", version.getMetadata().getResourceVersion()).isEqualTo(port);
      assertThat(hostname(version)).isEqualTo(kubelets.address().getHostAddress());
    }
    assertThat(summaryNodeName(HEARTBEAT_NODE)).isEqualTo(HEARTBEAT_NODE);
    System.out.printf("%d versions of %s since Ready=False; KWOK's write at resourceVersion %s (managers %s) kept "
        + "port %d%n", fromTrigger.size(), HEARTBEAT_NODE, kwoks.getMetadata().getResourceVersion(),
        kwoks.getMetadata().getManagedFields().stream().map(f -> f.getManager() + "/" + f.getOperation()
            + (f.getSubresource() == null ? "" : "/" + f.getSubresource())).toList(), port);
  }

  @Test
  void aNodeAddedLaterIsServedAndADeletedOneNoLonger() throws Exception {
    nodes.add(h100(LATE_NODE, Map.of()), KUBELET_VERSION);
    nodes.awaitReady(List.of(LATE_NODE), Duration.ofSeconds(60));
    awaitPublished(LATE_NODE);
    int port = kubelets.port(LATE_NODE).orElseThrow();
    assertThat(summaryNodeName(LATE_NODE)).isEqualTo(LATE_NODE);

    client.nodes().withName(LATE_NODE).delete();
    await().atMost(Duration.ofSeconds(60)).until(() -> kubelets.port(LATE_NODE).isEmpty());
    assertThatThrownBy(() -> {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(kubelets.address(), port), 5_000);
      }
    }).isInstanceOf(ConnectException.class);
    Answer gone = send("GET", LATE_NODE, "stats/summary");
    assertThat(gone.code()).isEqualTo(404);
    assertThat(gone.body()).contains("nodes \\\"" + LATE_NODE + "\\\" not found");
  }

  @Test
  void onlyAClientWithACertificateOfTheClusterCaIsServed() throws Exception {
    URI summary = URI.create("https://" + kubelets.address().getHostAddress() + ":"
        + kubelets.port(READY_NODE).orElseThrow() + "/stats/summary");
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    trusted.load(null, null);
    trusted.setCertificateEntry("ca", KubePki.Pem.readCertificate(kube.pki().caCertificate()));
    TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(trusted);

    SSLContext anonymous = SSLContext.getInstance("TLS");
    anonymous.init(null, trust.getTrustManagers(), null);
    assertThatThrownBy(() -> get(anonymous, summary)).isInstanceOf(IOException.class);

    KubePki.Pair admin = kube.pki().client("admin", LocalKubernetes.ADMIN_USER, List.of("system:masters"));
    KeyStore keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    keys.setKeyEntry("admin", KubePki.Pem.readKeyPair(admin.key()).getPrivate(), new char[] {'x'},
        new Certificate[] {KubePki.Pem.readCertificate(admin.certificate())});
    KeyManagerFactory key = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    key.init(keys, new char[] {'x'});
    SSLContext withCertificate = SSLContext.getInstance("TLS");
    withCertificate.init(key.getKeyManagers(), trust.getTrustManagers(), null);
    HttpResponse<String> answer = get(withCertificate, summary);
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(answer.body()).path("node").path("nodeName").asText()).isEqualTo(READY_NODE);
  }

  @Test
  void theApiserverRefusesToProxyToLoopbackWhichIsWhyTheHostnameIsRewritten() throws Exception {
    // A node no one plays (no KWOK annotation), pointed at a live kubelet stand-in port, first over loopback.
    int port = kubelets.port(READY_NODE).orElseThrow();
    client.resource(new NodeBuilder().withNewMetadata().withName(LOOPBACK_NODE).endMetadata().withNewStatus()
        .addNewAddress().withType("Hostname").withAddress("127.0.0.1").endAddress()
        .withNewDaemonEndpoints().withNewKubeletEndpoint().withPort(port).endKubeletEndpoint().endDaemonEndpoints()
        .endStatus().build()).create();
    try {
      Answer loopback = send("GET", LOOPBACK_NODE, "stats/summary");
      assertThat(loopback.code()).isEqualTo(400);
      assertThat(loopback.body()).contains("address not allowed");

      client.nodes().withName(LOOPBACK_NODE).subresource("status").patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
          "{\"status\":{\"addresses\":[{\"type\":\"Hostname\",\"address\":\""
              + kubelets.address().getHostAddress() + "\"}]}}");
      await().atMost(Duration.ofSeconds(30)).until(() -> send("GET", LOOPBACK_NODE, "stats/summary").code() == 200);
    } finally {
      client.nodes().withName(LOOPBACK_NODE).delete();
    }
  }

  // --- helpers ---------------------------------------------------------------------------------------

  private static SimSeed.NodeSpec h100(String name, Map<String, String> labels) {
    return new SimSeed.NodeSpec(name, "exclusive", new SimSeed.GpuSpec("NVIDIA H100 80GB HBM3", 8, 81_559, null),
        labels);
  }

  /** Until the stand-in serves the node and its status names the port and address, and the proxy answers. */
  private static void awaitPublished(String node) {
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      assertThat(kubelets.port(node)).isPresent();
      Node n = client.nodes().withName(node).get();
      assertThat(n.getStatus().getDaemonEndpoints().getKubeletEndpoint().getPort())
          .isEqualTo(kubelets.port(node).getAsInt());
      assertThat(hostname(n)).isEqualTo(kubelets.address().getHostAddress());
      assertThat(send("GET", node, "stats/summary").code()).isEqualTo(200);
    });
  }

  private static void runPod(String name, String node, String claim) {
    PodBuilder pod = new PodBuilder().withNewMetadata().withName(name).withNamespace(NS).endMetadata()
        .withNewSpec().withNodeName(node).addNewContainer().withName("main").withImage("registry.example.com/cuda:12")
        .endContainer().endSpec();
    if (claim != null) {
      pod.editSpec().addNewVolume().withName("data").withNewPersistentVolumeClaim().withClaimName(claim)
          .endPersistentVolumeClaim().endVolume().editFirstContainer().addNewVolumeMount().withName("data")
          .withMountPath("/data").endVolumeMount().endContainer().endSpec();
    }
    client.resource(pod.build()).create();
    await().atMost(Duration.ofSeconds(60)).until(() -> {
      Pod p = client.pods().inNamespace(NS).withName(name).get();
      return p.getStatus() != null && "Running".equals(p.getStatus().getPhase());
    });
  }

  /** A Job's pod on {@code node}: KWOK runs it, then completes it (its pod-complete stage); its name. */
  private static String finishedJobPod(String job, String node) {
    client.resource(new JobBuilder().withNewMetadata().withName(job).withNamespace(NS).endMetadata().withNewSpec()
        .withNewTemplate().withNewSpec().withNodeName(node).withRestartPolicy("Never").addNewContainer()
        .withName("main").withImage("registry.example.com/cuda:12").endContainer().endSpec().endTemplate()
        .endSpec().build()).create();
    return await().atMost(Duration.ofSeconds(60)).until(() -> client.pods().inNamespace(NS).withLabel("job-name", job)
            .list().getItems().stream().filter(p -> p.getStatus() != null && "Succeeded".equals(p.getStatus().getPhase()))
            .map(p -> p.getMetadata().getName()).findFirst().orElse(null),
        Objects::nonNull);
  }

  private static JsonNode pod(JsonNode summary, String name) {
    for (JsonNode pod : summary.path("pods")) {
      if (name.equals(pod.path("podRef").path("name").asText())) {
        return pod;
      }
    }
    return null;
  }

  private static String summaryNodeName(String node) throws IOException {
    return JSON.readTree(client.raw(kube.url() + "/api/v1/nodes/" + node + "/proxy/stats/summary"))
        .path("node").path("nodeName").asText();
  }

  private static String hostname(Node node) {
    return node.getStatus().getAddresses().stream().filter(a -> "Hostname".equals(a.getType()))
        .map(a -> a.getAddress()).findFirst().orElse(null);
  }

  private static NodeCondition ready(Node node) {
    return node.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType())).findFirst().orElse(null);
  }

  private static int firstNotReady(List<Node> seen) {
    for (int i = 0; i < seen.size(); i++) {
      NodeCondition ready = ready(seen.get(i));
      if (ready != null && "False".equals(ready.getStatus())) {
        return i;
      }
    }
    return -1;
  }

  /** The version after the Ready=False trigger in which Ready is True again: only KWOK writes that. */
  private static Node kwoksWrite(List<Node> seen) {
    int trigger = firstNotReady(seen);
    if (trigger < 0) {
      return null;
    }
    for (Node node : seen.subList(trigger + 1, seen.size())) {
      NodeCondition ready = ready(node);
      if (ready != null && "True".equals(ready.getStatus())) {
        return node;
      }
    }
    return null;
  }

  private static int count(String text, Pattern pattern) {
    return (int) pattern.matcher(text).results().count();
  }

  private static String checkpointUrl(String node, String pod) {
    return kube.url() + "/api/v1/nodes/" + node + "/proxy/checkpoint/" + NS + "/" + pod + "/main";
  }

  /** A status code and body, as the apiserver's proxy passed them on. */
  record Answer(int code, String body) {}

  private static Answer post(String node, String path) throws Exception {
    return send("POST", node, path);
  }

  /** A request through the apiserver's node proxy with the admin's client, whatever its status. */
  private static Answer send(String method, String node, String path) throws Exception {
    var http = once.getHttpClient();
    var request = http.newHttpRequestBuilder().uri(kube.url() + "/api/v1/nodes/" + node + "/proxy/" + path);
    if ("POST".equals(method)) {
      request.post("application/json", "");
    }
    var response = http.sendAsync(request.build(), String.class).get(60, TimeUnit.SECONDS);
    return new Answer(response.code(), response.body());
  }

  private static HttpResponse<String> get(SSLContext tls, URI uri) throws IOException, InterruptedException {
    return HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(10)).build()
        .send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  private static String kubectl(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(kube.tools().kubectl().toString(),
        "--kubeconfig=" + kube.kubeconfig()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("kubectl %s: %s", String.join(" ", args), output).isZero();
    return output;
  }
}
