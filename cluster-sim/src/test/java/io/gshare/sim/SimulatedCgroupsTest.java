package io.gshare.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.workflows.kube.KubeNames;
import io.gshare.workflows.kube.LabelKeys;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cgroup v2 tree of the running session containers, as a node's usage agent reads it, and the load API. */
class SimulatedCgroupsTest {

  private static final String NS = KubeNames.SESSIONS_NAMESPACE;
  private static final Pattern IO_LINE =
      Pattern.compile("259:0 rbytes=(\\d+) wbytes=(\\d+) rios=(\\d+) wios=(\\d+) dbytes=0 dios=0\n");

  @TempDir static Path root;
  private static SimulatedCluster cluster;
  private static KubernetesClient client;
  private static final HttpClient http = HttpClient.newHttpClient();

  /** A pod slice a simulator killed before it closed left behind. */
  private static Path leftover;

  @BeforeAll
  static void start() throws Exception {
    leftover = root.resolve("kubepods.slice/kubepods-burstable.slice/"
        + "kubepods-burstable-poddeadbeef_0000_4000_8000_000000000000.slice");
    Files.createDirectories(leftover.resolve("cri-containerd-" + "0".repeat(64) + ".scope"));
    Files.writeString(leftover.resolve("memory.current"), "1\n");
    cluster = SimulatedCluster.start(SimulatedCluster.defaultSeed(),
        new SimulatedCluster.Options("cgroups", "127.0.0.1", 0, Duration.ofMillis(50), Duration.ofMillis(100))
            .withCgroupRoot(root));
    client = cluster.newClient();
  }

  @AfterAll
  static void stop() {
    client.close();
    cluster.close();
  }

  @Test
  void aRunningSessionPodHasItsScopeWhereTheKubeletPutsItAndLosesItWhenDeleted() throws Exception {
    Pod pod = runSessionPod("ses-layout", Map.of("cpu", "1", "memory", "1Gi"), Map.of("cpu", "2", "memory", "2Gi"));
    String uid = pod.getMetadata().getUid();
    String containerId = pod.getStatus().getContainerStatuses().get(0).getContainerID();
    assertThat(uid).matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    assertThat(containerId).matches("containerd://[0-9a-f]{64}");

    Path slice = root.resolve("kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
        + uid.replace('-', '_') + ".slice");
    Path scope = slice.resolve("cri-containerd-" + containerId.substring("containerd://".length()) + ".scope");
    await().atMost(Duration.ofSeconds(5)).ignoreExceptions().untilAsserted(() -> {
      for (Path dir : new Path[] {slice, scope}) {
        assertThat(Files.readString(dir.resolve("cpu.stat")))
            .containsPattern("(?m)^usage_usec \\d+$").containsPattern("(?m)^user_usec \\d+$")
            .containsPattern("(?m)^system_usec \\d+$");
        assertThat(Files.readString(dir.resolve("memory.current"))).isEqualTo((256L << 20) + "\n");
        assertThat(Files.readString(dir.resolve("io.stat"))).matches(IO_LINE);
      }
    });
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(usageUsec(scope)).isPositive();
      assertThat(io(scope, 1)).isPositive();
      assertThat(io(scope, 2)).isPositive();
    });

    client.pods().inNamespace(NS).withName("ses-layout").delete();
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(scope).doesNotExist();
      assertThat(slice).doesNotExist();
    });
    assertThat(root.resolve("kubepods.slice/kubepods-burstable.slice")).isDirectory();
  }

  @Test
  void guaranteedAndBestEffortPodsLiveWhereTheirQosClassPutsThem() {
    Pod guaranteed = runSessionPod("ses-guaranteed", Map.of(), Map.of("cpu", "2", "memory", "4Gi"));
    Pod bestEffort = runSessionPod("ses-besteffort", Map.of(), Map.of());
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(root.resolve("kubepods.slice/kubepods-pod" + guaranteed.getMetadata().getUid().replace('-', '_')
          + ".slice/" + scopeName(guaranteed) + "/cpu.stat")).isRegularFile();
      assertThat(root.resolve("kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
          + bestEffort.getMetadata().getUid().replace('-', '_') + ".slice/" + scopeName(bestEffort) + "/io.stat"))
          .isRegularFile();
    });
  }

  @Test
  void cpuUsageAdvancesAtTheLoadAndThePutChangesIt() throws Exception {
    Pod pod = runSessionPod("ses-rate", Map.of(), Map.of());
    Path scope = root.resolve("kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
        + pod.getMetadata().getUid().replace('-', '_') + ".slice/" + scopeName(pod));
    await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(scope.resolve("cpu.stat")));

    assertThat(coresOver(scope, Duration.ofSeconds(2))).isCloseTo(0.5, within(0.075));

    HttpResponse<String> put = put("/sim/v1/namespaces/" + NS + "/pods/ses-rate/load",
        "{\"cpu_cores\": 1.5, \"memory_bytes\": 1073741824}");
    assertThat(put.statusCode()).isEqualTo(200);
    assertThat(put.body()).contains("\"cpu_cores\":1.5").contains("\"memory_bytes\":1073741824")
        .contains("\"io_read_bytes_per_second\":1048576.0");
    assertThat(coresOver(scope, Duration.ofSeconds(2))).isCloseTo(1.5, within(0.225));
    assertThat(Files.readString(scope.resolve("memory.current"))).isEqualTo("1073741824\n");
    assertThat(Files.readString(scope.getParent().resolve("memory.current"))).isEqualTo("1073741824\n");

    assertThat(put("/sim/v1/namespaces/" + NS + "/pods/ses-rate/load", "{\"cpu_cores\": 0, "
        + "\"io_read_bytes_per_second\": 0, \"io_write_bytes_per_second\": 0}").statusCode()).isEqualTo(200);
    long before = usageUsec(scope);
    long readBefore = io(scope, 1);
    Thread.sleep(2200);
    assertThat(usageUsec(scope)).isEqualTo(before);
    assertThat(io(scope, 1)).isEqualTo(readBefore);
    assertThat(get("/sim/v1/namespaces/" + NS + "/pods/ses-rate/load").body()).contains("\"cpu_cores\":0.0")
        .contains("\"memory_bytes\":1073741824");
  }

  @Test
  void loadRefusesBadBodiesAndUnknownPods() throws Exception {
    runSessionPod("ses-bad", Map.of(), Map.of());
    String path = "/sim/v1/namespaces/" + NS + "/pods/ses-bad/load";
    for (String body : new String[] {"{\"cpu_cores\": -1}", "{\"cpu_cores\": \"2\"}", "{\"memory_bytes\": 1e400}",
        "{\"io_write_bytes_per_second\": null}", "{\"cpu\": 1}", "[1]", "not json"}) {
      HttpResponse<String> answer = put(path, body);
      assertThat(answer.statusCode()).as(body).isEqualTo(400);
      assertThat(answer.body()).as(body).contains("\"message\"");
    }
    assertThat(get(path).body()).contains("\"cpu_cores\":0.5");
    assertThat(put("/sim/v1/namespaces/" + NS + "/pods/no-such-pod/load", "{\"cpu_cores\": 1}").statusCode())
        .isEqualTo(404);
    assertThat(put(path, "{}").statusCode()).isEqualTo(200);
  }

  @Test
  void aPodThatStopsRunningLosesItsDirectories() throws Exception {
    Pod pod = runSessionPod("ses-failing", Map.of(), Map.of());
    Path slice = root.resolve("kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
        + pod.getMetadata().getUid().replace('-', '_') + ".slice");
    await().atMost(Duration.ofSeconds(5)).until(() -> Files.isDirectory(slice.resolve(scopeName(pod))));

    http.send(HttpRequest.newBuilder(URI.create(cluster.url() + "/sim/v1/namespaces/" + NS + "/pods/ses-failing/fail"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(client.pods().inNamespace(NS).withName("ses-failing").get().getStatus().getPhase()).isEqualTo("Failed");
      assertThat(slice).doesNotExist();
    });
  }

  @Test
  void leftoversOfAnEarlierSimulatorAreRemovedAtStart() {
    assertThat(leftover).doesNotExist();
    assertThat(leftover.getParent()).isDirectory();
  }

  @Test
  void infoNamesTheRootAndATemporaryRootGoesWithTheCluster() throws Exception {
    assertThat(get("/sim/v1/info").body()).contains("\"cgroupRoot\":\"" + root.toAbsolutePath() + "\"");

    Path temporary;
    try (SimulatedCluster other = SimulatedCluster.start(SimulatedCluster.defaultSeed(),
        SimulatedCluster.Options.defaults().withName("cgroups-temp"))) {
      temporary = other.cgroupRoot();
      assertThat(temporary.resolve("kubepods.slice")).isDirectory();
    }
    assertThat(temporary).doesNotExist();
  }

  /** Creates a session pod on the A100 node with one container and waits until it runs. */
  private static Pod runSessionPod(String name, Map<String, String> requests, Map<String, String> limits) {
    client.pods().inNamespace(NS).resource(new PodBuilder()
        .withNewMetadata().withName(name).addToLabels(LabelKeys.SESSION_ID, name).endMetadata()
        .withNewSpec().withNodeName("sim-a100-0").addNewContainer().withName("session").withImage("gshare/jupyter:1")
        .withNewResources().withRequests(quantities(requests)).withLimits(quantities(limits)).endResources()
        .endContainer().endSpec().build()).create();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(client.pods().inNamespace(NS).withName(name).get().getStatus()).isNotNull()
            .extracting(s -> s.getPhase()).isEqualTo("Running"));
    return client.pods().inNamespace(NS).withName(name).get();
  }

  private static Map<String, Quantity> quantities(Map<String, String> values) {
    Map<String, Quantity> out = new java.util.HashMap<>();
    values.forEach((k, v) -> out.put(k, new Quantity(v)));
    return out;
  }

  private static String scopeName(Pod pod) {
    return "cri-containerd-" + pod.getStatus().getContainerStatuses().get(0).getContainerID()
        .substring("containerd://".length()) + ".scope";
  }

  /**
   * The CPU cores the scope used between two of its updates about {@code span} apart, timed by when each update
   * was first seen.
   */
  private static double coresOver(Path scope, Duration span) throws Exception {
    long[] first = nextUpdate(scope, usageUsec(scope));
    Thread.sleep(span.toMillis());
    long[] second = nextUpdate(scope, usageUsec(scope));
    return (second[0] - first[0]) / ((second[1] - first[1]) / 1e3);
  }

  /** Polls until usage_usec differs from {@code seen}: the new value and when it was seen (nanoTime). */
  private static long[] nextUpdate(Path scope, long seen) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (System.nanoTime() < deadline) {
      long now = usageUsec(scope);
      if (now != seen) {
        return new long[] {now, System.nanoTime()};
      }
      Thread.sleep(5);
    }
    throw new AssertionError("usage_usec of " + scope + " stayed at " + seen + " for 5 s");
  }

  private static long usageUsec(Path dir) throws Exception {
    Matcher m = Pattern.compile("(?m)^usage_usec (\\d+)$").matcher(Files.readString(dir.resolve("cpu.stat")));
    assertThat(m.find()).isTrue();
    return Long.parseLong(m.group(1));
  }

  private static long io(Path dir, int group) throws Exception {
    Matcher m = IO_LINE.matcher(Files.readString(dir.resolve("io.stat")));
    assertThat(m.matches()).isTrue();
    return Long.parseLong(m.group(group));
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(cluster.url() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> put(String path, String body) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(cluster.url() + path))
        .PUT(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json").build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
