package io.gshare.sim.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.sim.ClusterView;
import io.gshare.sim.GpuMetrics;
import io.gshare.sim.SimObjects;
import io.gshare.sim.SimSeed;
import io.gshare.sim.SimulatedCgroups;
import io.gshare.workflows.kube.KubeNames;
import io.gshare.workflows.kube.LabelKeys;
import io.gshare.workflows.kube.SimulatorInfo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node-level simulators {@link KubeCluster} runs over a real Kubernetes, read as monitoring and the usage agent
 * read them and driven through the cluster's Java API: the DCGM exporter and HAMi's vGPU monitor ({@link GpuMetrics}:
 * every GPU idle until set, the values set, running pods by container and device, nothing for a deleted node, values
 * out of range refused) and the cgroup v2 tree of the running pods ({@link SimulatedCgroups}: each pod where the
 * kubelet's systemd driver puts it for its QoS class, counters at the load set, removal when the pod is deleted or
 * fails, an earlier run's leftovers removed, bad loads and unknown pods refused). One cluster for all tests; each test
 * has pods and GPUs of its own.
 */
class SimulatorsOnKubernetesIT {

  private static final String CLUSTER = "simulators-it";
  private static final String NS = KubeNames.SESSIONS_NAMESPACE;
  /** Generous: the control plane, KWOK and the simulators share two cores with other builds. */
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  /** How long the counters' rates are measured over (see {@link #countersAdvanceAtTheLoadSetThroughTheJavaApi}). */
  private static final Duration RATE_WINDOW = Duration.ofSeconds(8);
  private static final long MIB = 1L << 20;
  private static final long GIB = 1L << 30;
  private static final Pattern IO_LINE =
      Pattern.compile("259:0 rbytes=(\\d+) wbytes=(\\d+) rios=(\\d+) wios=(\\d+) dbytes=0 dios=0\n");
  private static final HttpClient http = HttpClient.newHttpClient();

  @TempDir static Path root;
  private static KubeCluster cluster;
  private static KubernetesClient client;
  /** A pod slice that a simulator killed before it closed left behind. */
  private static Path leftover;

  @BeforeAll
  static void start() throws Exception {
    leftover = root.resolve("kubepods.slice/kubepods-burstable.slice/"
        + "kubepods-burstable-poddeadbeef_0000_4000_8000_000000000000.slice");
    Files.createDirectories(leftover.resolve("cri-containerd-" + "0".repeat(64) + ".scope"));
    Files.writeString(leftover.resolve("memory.current"), "1\n");
    cluster = KubeCluster.start(SimSeed.defaultSeed(),
        KubeCluster.Options.defaults().withName(CLUSTER).withCgroupRoot(root));
    client = cluster.newClient();
    client.resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).serverSideApply();
    // The real apiserver refuses pods until the controller-manager made the namespace's default ServiceAccount.
    await().atMost(PATIENCE).until(() -> client.serviceAccounts().inNamespace(NS).withName("default").get() != null);
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  // --- GPU metrics ------------------------------------------------------------------------------------

  @Test
  void dcgmExporterReportsEveryGpuIdleUntilSetAndThenTheValuesSet() throws Exception {
    String uuid = SimObjects.gpuUuid(CLUSTER, "sim-h100-0", 1);
    String before = get(cluster.dcgmMetricsUrl());
    assertThat(before).contains("# TYPE DCGM_FI_DEV_GPU_UTIL gauge")
        .contains("DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"" + uuid + "\"")
        .containsPattern("DCGM_FI_DEV_GPU_UTIL\\{[^}]*UUID=\"" + uuid + "\"[^}]*Hostname=\"sim-h100-0\"[^}]*} 0\n")
        .contains("DCGM_FI_DEV_XID_ERRORS{gpu=\"1\",UUID=\"" + uuid + "\"");
    for (int i = 0; i < 8; i++) {
      assertThat(before).contains("DCGM_FI_DEV_GPU_UTIL{gpu=\"" + i + "\",UUID=\""
          + SimObjects.gpuUuid(CLUSTER, "sim-h100-0", i) + "\"");
    }
    for (int i = 0; i < 4; i++) {
      assertThat(before).contains("DCGM_FI_DEV_GPU_UTIL{gpu=\"" + i + "\",UUID=\""
          + SimObjects.gpuUuid(CLUSTER, "sim-a100-0", i) + "\"");
    }

    assertThat(cluster.setGpuMetrics(uuid, 87, 79)).isTrue();
    assertThat(get(cluster.dcgmMetricsUrl()))
        .containsPattern("DCGM_FI_DEV_GPU_UTIL\\{[^}]*UUID=\"" + uuid + "\"[^}]*} 87\n")
        .containsPattern("DCGM_FI_DEV_XID_ERRORS\\{[^}]*UUID=\"" + uuid + "\"[^}]*err_code=\"79\"} 79\n");
  }

  @Test
  void gpuMetricsRefuseUnknownGpusAndValuesOutOfRange() throws Exception {
    assertThat(cluster.setGpuMetrics("GPU-nope", 1, 0)).isFalse();
    String uuid = SimObjects.gpuUuid(CLUSTER, "sim-a100-0", 0);
    for (double util : new double[] {101, -1, Double.NaN}) {
      assertThatThrownBy(() -> cluster.setGpuMetrics(uuid, util, 0)).as("util %s", util)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> cluster.setGpuMetrics(uuid, 50, -1)).isInstanceOf(IllegalArgumentException.class);
    // nothing refused was kept
    assertThat(get(cluster.dcgmMetricsUrl()))
        .containsPattern("DCGM_FI_DEV_GPU_UTIL\\{[^}]*UUID=\"" + uuid + "\"[^}]*} 0\n")
        .containsPattern("DCGM_FI_DEV_XID_ERRORS\\{[^}]*UUID=\"" + uuid + "\"[^}]*err_code=\"0\"} 0\n");
  }

  @Test
  void hamiMonitorReportsRunningPodsByContainerAndDevice() throws Exception {
    String uuid = SimObjects.gpuUuid(CLUSTER, "sim-a100-0", 1);
    client.pods().inNamespace("default").resource(new PodBuilder()
        .withNewMetadata().withName("trainer").addToAnnotations("nvidia.com/use-gpuuuid", uuid).endMetadata()
        .withNewSpec().withNodeName("sim-a100-0").addNewContainer().withName("main").withImage("gshare/trainer:1")
        .endContainer().endSpec().build()).create();
    await().atMost(PATIENCE).untilAsserted(() ->
        assertThat(get(cluster.hamiMonitorUrl())).contains("pod=\"trainer\""));

    String labels = "{namespace=\"default\",pod=\"trainer\",container=\"main\",vdevice_index=\"0\",device_uuid=\""
        + uuid + "\"}";
    assertThat(get(cluster.hamiMonitorUrl()))
        .contains("hami_container_device_utilization_ratio" + labels + " 0.0\n")
        .contains("hami_container_last_kernel_elapsed_seconds" + labels + " ");

    assertThat(cluster.setGpuMetrics(uuid, 50, 0)).isTrue();
    assertThat(get(cluster.hamiMonitorUrl()))
        .contains("hami_container_device_utilization_ratio" + labels + " 0.5\n")
        .contains("hami_container_last_kernel_elapsed_seconds" + labels + " 0\n");

    // idle again: the seconds since the last kernel count up from the moment it stopped
    assertThat(cluster.setGpuMetrics(uuid, 0, 0)).isTrue();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(get(cluster.hamiMonitorUrl()))
        .containsPattern("hami_container_last_kernel_elapsed_seconds" + Pattern.quote(labels) + " [1-9]"));
  }

  /** KubeCluster has no "drop" (the stand-in's unreachable node); a node deleted from the cluster is the nearest. */
  @Test
  void aNodeDeletedFromTheClusterExportsNothing() throws Exception {
    String node = "gone-l40-0";
    assertThat(cluster.addNode(new SimSeed.NodeSpec(node, "fractional",
        new SimSeed.GpuSpec("NVIDIA L40S", 2, 46068, null), Map.of()))).isTrue();
    String uuid = SimObjects.gpuUuid(CLUSTER, node, 0);
    assertThat(get(cluster.dcgmMetricsUrl())).contains("UUID=\"" + uuid + "\"")
        .containsPattern("Hostname=\"" + node + "\"");

    client.nodes().withName(node).delete();
    await().atMost(PATIENCE).untilAsserted(() -> assertThat(get(cluster.dcgmMetricsUrl()))
        .doesNotContain(uuid).doesNotContain("Hostname=\"" + node + "\""));
    assertThat(get(cluster.dcgmMetricsUrl())).contains(SimObjects.gpuUuid(CLUSTER, "sim-h100-0", 0));
  }

  // --- cgroups ----------------------------------------------------------------------------------------

  @Test
  void aRunningSessionPodHasItsScopeWhereTheKubeletPutsItAndLosesItWhenDeleted() throws Exception {
    Pod pod = runSessionPod("ses-layout", Map.of("cpu", "1", "memory", "1Gi"), Map.of("cpu", "2", "memory", "2Gi"));
    String uid = pod.getMetadata().getUid();
    String containerId = pod.getStatus().getContainerStatuses().get(0).getContainerID();
    assertThat(uid).matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    assertThat(containerId).matches("containerd://[0-9a-f]{64}");
    assertThat(pod.getStatus().getQosClass()).isEqualTo("Burstable");

    Path slice = root.resolve("kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
        + uid.replace('-', '_') + ".slice");
    Path scope = slice.resolve("cri-containerd-" + containerId.substring("containerd://".length()) + ".scope");
    await().atMost(PATIENCE).ignoreExceptions().untilAsserted(() -> {
      for (Path dir : new Path[] {slice, scope}) {
        assertThat(Files.readString(dir.resolve("cpu.stat")))
            .containsPattern("(?m)^usage_usec \\d+$").containsPattern("(?m)^user_usec \\d+$")
            .containsPattern("(?m)^system_usec \\d+$");
        assertThat(Files.readString(dir.resolve("memory.current"))).isEqualTo((256 * MIB) + "\n");
        assertThat(Files.readString(dir.resolve("io.stat"))).matches(IO_LINE);
      }
    });
    await().atMost(PATIENCE).untilAsserted(() -> {
      assertThat(usageUsec(scope)).isPositive();
      assertThat(io(scope, 1)).isPositive();
      assertThat(io(scope, 2)).isPositive();
    });

    client.pods().inNamespace(NS).withName("ses-layout").delete();
    await().atMost(PATIENCE).untilAsserted(() -> {
      assertThat(scope).doesNotExist();
      assertThat(slice).doesNotExist();
    });
    assertThat(root.resolve("kubepods.slice/kubepods-burstable.slice")).isDirectory();
  }

  @Test
  void guaranteedAndBestEffortPodsLiveWhereTheirQosClassPutsThem() {
    // Limits alone: the real apiserver defaults the requests to them, which makes the pod Guaranteed.
    Pod guaranteed = runSessionPod("ses-guaranteed", Map.of(), Map.of("cpu", "2", "memory", "4Gi"));
    Pod bestEffort = runSessionPod("ses-besteffort", Map.of(), Map.of());
    assertThat(guaranteed.getStatus().getQosClass()).isEqualTo("Guaranteed");
    assertThat(bestEffort.getStatus().getQosClass()).isEqualTo("BestEffort");
    await().atMost(PATIENCE).untilAsserted(() -> {
      assertThat(root.resolve("kubepods.slice/kubepods-pod" + guaranteed.getMetadata().getUid().replace('-', '_')
          + ".slice/" + scopeName(guaranteed) + "/cpu.stat")).isRegularFile();
      assertThat(root.resolve(bestEffortSlice(bestEffort) + "/" + scopeName(bestEffort) + "/io.stat")).isRegularFile();
    });
  }

  /**
   * Rates are measured between two of the simulator's passes about 8 s apart (the stand-in's test took 2 s) and
   * allowed 20 % off (it allowed 15 %). Each pass is timed by when the test first sees its files, which is after the
   * pass listed every pod from the apiserver: on a busy machine that list took up to a second longer in one pass than
   * in another (0.40 cores measured for 0.5 over a 4 s window). The loads compared differ far more.
   */
  @Test
  void countersAdvanceAtTheLoadSetThroughTheJavaApi() throws Exception {
    Pod pod = runSessionPod("ses-rate", Map.of(), Map.of());
    Path scope = root.resolve(bestEffortSlice(pod)).resolve(scopeName(pod));
    await().atMost(PATIENCE).until(() -> Files.exists(scope.resolve("io.stat")));

    // the default load: half a core, 1 MiB/s read, 512 KiB/s written
    Rates idle = ratesOver(scope, RATE_WINDOW);
    assertThat(idle.cores()).isCloseTo(0.5, within(0.1));
    assertThat(idle.readPerSecond()).isCloseTo(MIB, within(0.2 * MIB));
    assertThat(idle.writtenPerSecond()).isCloseTo(512 * 1024, within(0.2 * 512 * 1024));

    assertThat(cluster.setPodLoad(NS, "ses-rate", 1.5, GIB, 2 * MIB, 256 * 1024)).isTrue();
    Rates busy = ratesOver(scope, RATE_WINDOW);
    assertThat(busy.cores()).isCloseTo(1.5, within(0.3));
    assertThat(busy.readPerSecond()).isCloseTo(2 * MIB, within(0.4 * MIB));
    assertThat(busy.writtenPerSecond()).isCloseTo(256 * 1024, within(0.2 * 256 * 1024));
    assertThat(Files.readString(scope.resolve("memory.current"))).isEqualTo(GIB + "\n");
    assertThat(Files.readString(scope.getParent().resolve("memory.current"))).isEqualTo(GIB + "\n");

    // no work: the counters stand still while the memory stays as set
    assertThat(cluster.setPodLoad(NS, "ses-rate", 0, GIB, 0, 0)).isTrue();
    long before = usageUsec(scope);
    long readBefore = io(scope, 1);
    long writtenBefore = io(scope, 2);
    Thread.sleep(3000);
    assertThat(usageUsec(scope)).isEqualTo(before);
    assertThat(io(scope, 1)).isEqualTo(readBefore);
    assertThat(io(scope, 2)).isEqualTo(writtenBefore);
    assertThat(Files.readString(scope.resolve("memory.current"))).isEqualTo(GIB + "\n");
  }

  @Test
  void negativeOrNonFiniteLoadsAndUnknownPodsAreRefused() throws Exception {
    Pod pod = runSessionPod("ses-bad", Map.of(), Map.of());
    Path scope = root.resolve(bestEffortSlice(pod)).resolve(scopeName(pod));
    await().atMost(PATIENCE).until(() -> Files.exists(scope.resolve("cpu.stat")));

    assertThat(cluster.setPodLoad(NS, "no-such-pod", 1, GIB, 0, 0)).isFalse();
    assertThatThrownBy(() -> cluster.setPodLoad(NS, "ses-bad", -1, GIB, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> cluster.setPodLoad(NS, "ses-bad", Double.NaN, GIB, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> cluster.setPodLoad(NS, "ses-bad", 1, -1, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> cluster.setPodLoad(NS, "ses-bad", 1, GIB, Double.POSITIVE_INFINITY, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> cluster.setPodLoad(NS, "ses-bad", 1, GIB, 0, -1))
        .isInstanceOf(IllegalArgumentException.class);

    // after a pass more, the pod still runs at the default load: nothing refused was kept, not even in part
    long seen = usageUsec(scope);
    await().atMost(PATIENCE).until(() -> usageUsec(scope) != seen);
    assertThat(Files.readString(scope.resolve("memory.current"))).isEqualTo((256 * MIB) + "\n");
  }

  @Test
  void aPodThatStopsRunningLosesItsDirectories() {
    Pod pod = runSessionPod("ses-failing", Map.of(), Map.of());
    Path slice = root.resolve(bestEffortSlice(pod));
    await().atMost(PATIENCE).until(() -> Files.isDirectory(slice.resolve(scopeName(pod))));

    cluster.failPod(NS, "ses-failing", "Error");
    await().atMost(PATIENCE).untilAsserted(() -> {
      assertThat(client.pods().inNamespace(NS).withName("ses-failing").get().getStatus().getPhase())
          .isEqualTo("Failed");
      assertThat(slice).doesNotExist();
    });
  }

  @Test
  void leftoversOfAnEarlierRunAreRemovedAtStart() {
    assertThat(leftover).doesNotExist();
    assertThat(leftover.getParent()).isDirectory();
  }

  @Test
  void theRootIsPublishedAndATemporaryRootGoesWithItsSimulator() {
    assertThat(cluster.cgroupRoot()).isEqualTo(root.toAbsolutePath());
    assertThat(client.configMaps().inNamespace(SimulatorInfo.NAMESPACE).withName(SimulatorInfo.CONFIG_MAP).get()
        .getData()).containsEntry(SimulatorInfo.CGROUP_ROOT, root.toAbsolutePath().toString());

    // What KubeCluster makes without withCgroupRoot, without starting a second cluster for it.
    Path temporary;
    try (SimulatedCgroups other = new SimulatedCgroups(ClusterView.of(client), null)) {
      other.start();
      temporary = other.root();
      assertThat(temporary).isNotEqualTo(root.toAbsolutePath());
      assertThat(temporary.resolve("kubepods.slice")).isDirectory();
    }
    assertThat(temporary).doesNotExist();
  }

  // --- helpers ----------------------------------------------------------------------------------------

  /** Creates a session pod on the A100 node with one container; waits until it runs and its container has an id. */
  private static Pod runSessionPod(String name, Map<String, String> requests, Map<String, String> limits) {
    client.pods().inNamespace(NS).resource(new PodBuilder()
        .withNewMetadata().withName(name).addToLabels(LabelKeys.SESSION_ID, name).endMetadata()
        .withNewSpec().withNodeName("sim-a100-0").addNewContainer().withName("session").withImage("gshare/jupyter:1")
        .withNewResources().withRequests(quantities(requests)).withLimits(quantities(limits)).endResources()
        .endContainer().endSpec().build()).create();
    // KWOK runs the pod; the container runtime stand-in then names its container
    await().atMost(PATIENCE).untilAsserted(() -> {
      Pod now = client.pods().inNamespace(NS).withName(name).get();
      assertThat(now.getStatus().getPhase()).isEqualTo("Running");
      assertThat(now.getStatus().getContainerStatuses()).singleElement()
          .satisfies(s -> assertThat(s.getContainerID()).startsWith("containerd://"));
    });
    return client.pods().inNamespace(NS).withName(name).get();
  }

  private static Map<String, Quantity> quantities(Map<String, String> values) {
    Map<String, Quantity> out = new HashMap<>();
    values.forEach((k, v) -> out.put(k, new Quantity(v)));
    return out;
  }

  private static String bestEffortSlice(Pod pod) {
    return "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
        + pod.getMetadata().getUid().replace('-', '_') + ".slice";
  }

  private static String scopeName(Pod pod) {
    return "cri-containerd-" + pod.getStatus().getContainerStatuses().get(0).getContainerID()
        .substring("containerd://".length()) + ".scope";
  }

  /** CPU cores, and bytes read and written per second. */
  private record Rates(double cores, double readPerSecond, double writtenPerSecond) {}

  /** One pass of the simulator as the test saw it: the scope's counters and when its io.stat changed (nanoTime). */
  private record Sample(long usageUsec, long readBytes, long writtenBytes, long seenAt) {}

  /** The rates between two of the simulator's passes about {@code span} apart, each timed by when it was seen. */
  private static Rates ratesOver(Path scope, Duration span) throws Exception {
    Sample first = nextPass(scope);
    Thread.sleep(span.toMillis());
    Sample second = nextPass(scope);
    double seconds = (second.seenAt() - first.seenAt()) / 1e9;
    return new Rates((second.usageUsec() - first.usageUsec()) / 1e6 / seconds,
        (second.readBytes() - first.readBytes()) / seconds, (second.writtenBytes() - first.writtenBytes()) / seconds);
  }

  /**
   * Polls until io.stat changes. A pass writes cpu.stat before io.stat, so the cpu.stat read just after is the same
   * pass's; under a load with I/O (what {@link #ratesOver} is used with) every pass changes io.stat.
   */
  private static Sample nextPass(Path scope) throws Exception {
    long[] seen = ioBytes(scope);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      long[] now = ioBytes(scope);
      if (!Arrays.equals(now, seen)) {
        long seenAt = System.nanoTime();
        return new Sample(usageUsec(scope), now[0], now[1], seenAt);
      }
      Thread.sleep(5);
    }
    throw new AssertionError("no pass of the cgroup simulator moved the I/O counters of " + scope + " within 10 s");
  }

  /** Bytes read and written, from one read of io.stat. */
  private static long[] ioBytes(Path dir) throws Exception {
    Matcher m = IO_LINE.matcher(Files.readString(dir.resolve("io.stat")));
    assertThat(m.matches()).isTrue();
    return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
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

  private static String get(String url) throws Exception {
    HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(url).isEqualTo(200);
    return answer.body();
  }
}
