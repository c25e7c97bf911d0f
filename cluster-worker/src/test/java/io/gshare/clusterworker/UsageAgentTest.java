package io.gshare.clusterworker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.contract.internal.InternalPaths;
import io.gshare.contract.internal.LiveUsage;
import io.gshare.sim.SimObjects;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.KubeCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent end to end in-process: session pods on a real cluster (the module's shared {@link KubeCluster}, this
 * test's own two nodes; the runtime stand-in names their containers), a cgroup tree for them in a temporary directory
 * (laid out as a node's kubelet would, by the pods' uids and container ids, with both cgroup drivers' layouts) whose
 * counters keep growing every 50 ms, and local HTTP servers standing in for the control plane and for HAMi's monitor.
 */
class UsageAgentTest {

  private static final String GPU_NODE = "agent-gpu-a";
  private static final String CPU_NODE = "agent-cpu-b";
  private static final Duration INTERVAL = Duration.ofMillis(200);
  private static KubeCluster cluster;
  private static KubernetesClient client;
  private static Pod onGpuNode;
  private static Pod onCpuNode;
  private static String gpu;

  @TempDir Path cgroups;
  @TempDir Path secrets;
  private ScheduledExecutorService busy;
  private ControlPlane controlPlane;
  private Path tokenFile;

  @BeforeAll
  static void startCluster() {
    cluster = SharedKubeCluster.get();
    SharedKubeCluster.addNodes(
        new SimSeed.NodeSpec(GPU_NODE, "fractional", new SimSeed.GpuSpec("NVIDIA A100-SXM4-40GB", 2, 40960, 10), Map.of()),
        new SimSeed.NodeSpec(CPU_NODE, "cpu", null, Map.of()));
    client = cluster.newClient();
    gpu = SimObjects.gpuUuid(SharedKubeCluster.NAME, GPU_NODE, 0);
    SharedKubeCluster.ensureNamespace(client, "gshare-sessions");
    client.resource(pod("gshare-ses-a", GPU_NODE, Map.of("gshare.io/session-id", "ses_a"))).create();
    client.resource(pod("gshare-ses-b", CPU_NODE, Map.of("gshare.io/session-id", "ses_b"))).create();
    client.resource(pod("not-a-session", GPU_NODE, Map.of("app", "other"))).create();
    // Running, and named by the runtime stand-in (a containerd id), which the cgroup paths below need.
    await().atMost(Duration.ofSeconds(30)).until(() -> OURS.stream().map(name -> client.pods()
        .inNamespace("gshare-sessions").withName(name).get()).allMatch(p -> p.getStatus() != null
            && "Running".equals(p.getStatus().getPhase()) && p.getStatus().getContainerStatuses() != null
            && p.getStatus().getContainerStatuses().get(0).getContainerID() != null));
    onGpuNode = client.pods().inNamespace("gshare-sessions").withName("gshare-ses-a").get();
    onCpuNode = client.pods().inNamespace("gshare-sessions").withName("gshare-ses-b").get();
  }

  private static final List<String> OURS = List.of("gshare-ses-a", "gshare-ses-b", "not-a-session");

  @AfterAll
  static void stopCluster() {
    OURS.forEach(name -> client.pods().inNamespace("gshare-sessions").withName(name).withGracePeriod(0).delete());
    client.close();
  }

  @BeforeEach
  void setUp() throws IOException {
    // The systemd driver's layout for one pod, cgroupfs's for the other: the agent finds either.
    Path a = cgroups.resolve("kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
        + onGpuNode.getMetadata().getUid().replace('-', '_') + ".slice/cri-containerd-" + containerId(onGpuNode) + ".scope");
    Path b = cgroups.resolve("kubepods/besteffort/pod" + onCpuNode.getMetadata().getUid() + "/" + containerId(onCpuNode));
    Path other = cgroups.resolve("kubepods/besteffort/pod" + client.pods().inNamespace("gshare-sessions")
        .withName("not-a-session").get().getMetadata().getUid());
    AtomicLong usec = new AtomicLong();
    busy = Executors.newSingleThreadScheduledExecutor();
    busy.scheduleAtFixedRate(() -> {
      long now = usec.addAndGet(25_000); // half a core
      for (Path dir : List.of(a, b, other)) {
        write(dir, now, 256L << 20, "8:0 rbytes=" + now * 10 + " wbytes=" + now + " rios=1 wios=1 dbytes=0 dios=0\n");
      }
    }, 0, 50, TimeUnit.MILLISECONDS);
    tokenFile = Files.writeString(secrets.resolve("internal-jwt"), "header.payload.signature");
    controlPlane = new ControlPlane();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    busy.shutdownNow();
    // A write still running would recreate directories while JUnit deletes the temporary tree.
    assertThat(busy.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    controlPlane.close();
  }

  @Test
  void postsTheNodesSessionsAboutOncePerIntervalWithHamisGpuFigures() throws Exception {
    HttpServer hami = serve("/metrics", """
        # HELP hami_vgpu_memory_used_bytes vGPU memory used
        # TYPE hami_vgpu_memory_used_bytes gauge
        hami_vgpu_memory_used_bytes{namespace="gshare-sessions",pod="gshare-ses-a",container="session",vdevice_index="0",device_uuid="GPU-1"} 1.073741824e+09
        hami_vgpu_memory_used_bytes{namespace="gshare-sessions",pod="gshare-ses-a",container="session",vdevice_index="1",device_uuid="GPU-2"} 536870912
        hami_vgpu_memory_used_bytes{namespace="elsewhere",pod="gshare-ses-a",container="session",vdevice_index="0",device_uuid="GPU-1"} 7
        hami_container_device_utilization_ratio{namespace="gshare-sessions",pod="gshare-ses-a",container="session",vdevice_index="0",device_uuid="GPU-1"} 0.25
        hami_container_device_utilization_ratio{namespace="gshare-sessions",pod="gshare-ses-a",container="session",vdevice_index="1",device_uuid="GPU-2"} 0.625
        """);
    try (AutoCloseable agent = UsageAgent.start(config(GPU_NODE, "http://127.0.0.1:" + hami.getAddress().getPort()
        + "/metrics"), client, INTERVAL)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> !controlPlane.samples("ses_a").isEmpty());
      int before = controlPlane.posts.size();
      Thread.sleep(2_000);
      int posts = controlPlane.posts.size() - before;
      // 2 s at 200 ms: about 10, fewer on a busy machine (a fixed delay after each tick, whose pod list goes to a
      // real apiserver), never more
      assertThat(posts).isBetween(3, 11);

      assertThat(controlPlane.posts).allSatisfy(post -> {
        assertThat(post.usage().node()).isEqualTo(GPU_NODE);
        assertThat(post.authorization()).isEqualTo("Bearer header.payload.signature");
        // ses_b runs on another node; not-a-session is no session
        assertThat(post.usage().samples()).extracting(LiveUsage.SessionSample::sessionId).containsExactly("ses_a");
      });
      // Half a core written every 50 ms at a fixed rate (late writes catch up): one sample may see a late write on
      // a busy machine, their mean is about half a core.
      assertThat(controlPlane.samples("ses_a").stream().mapToDouble(LiveUsage.SessionSample::cpuCores).average()
          .orElseThrow()).isBetween(0.25, 1.0);
      assertThat(controlPlane.samples("ses_a").stream().mapToDouble(LiveUsage.SessionSample::ioReadBytesPerSecond)
          .average().orElseThrow()).isPositive();
      assertThat(controlPlane.samples("ses_a").stream().mapToDouble(LiveUsage.SessionSample::ioWriteBytesPerSecond)
          .average().orElseThrow()).isPositive();
      assertThat(controlPlane.samples("ses_a")).allSatisfy(s -> {
        assertThat(s.cpuCores()).isBetween(0.0, 5.0);
        assertThat(s.memoryBytes()).isEqualTo(256L << 20);
        assertThat(s.ioReadBytesPerSecond()).isNotNegative();
        assertThat(s.ioWriteBytesPerSecond()).isNotNegative();
        assertThat(s.gpuMemoryBytes()).isEqualTo((1L << 30) + (1L << 29));
        assertThat(s.gpuUtilPercent()).isEqualTo(62.5);
      });
      List<LiveUsage.SessionSample> samples = controlPlane.samples("ses_a");
      for (int i = 1; i < samples.size(); i++) {
        assertThat(samples.get(i).sampledAt()).isAfter(samples.get(i - 1).sampledAt());
      }
    } finally {
      hami.stop(0);
    }
  }

  @Test
  void withoutANodeNameEveryNodesSessionsArePostedPerNode() throws Exception {
    assertThat(cluster.setGpuMetrics(gpu, 40, 0)).isTrue();
    try (AutoCloseable agent = UsageAgent.start(config(null, cluster.hamiMonitorUrl()), client, INTERVAL)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> !controlPlane.samples("ses_a").isEmpty()
          && !controlPlane.samples("ses_b").isEmpty());
    }
    // Other tests' sessions on other nodes of the shared cluster may be posted too: this test's two nodes here.
    assertThat(controlPlane.posts).filteredOn(post -> List.of(GPU_NODE, CPU_NODE).contains(post.usage().node()))
        .isNotEmpty().allSatisfy(post -> assertThat(post.usage().samples())
        .extracting(LiveUsage.SessionSample::sessionId).containsExactly(post.usage().node().equals(GPU_NODE) ? "ses_a" : "ses_b"));
    // The simulator's monitor serves HAMi's utilization ratio (0 to 1), and no memory series.
    assertThat(controlPlane.samples("ses_a")).allSatisfy(s -> {
      assertThat(s.gpuUtilPercent()).isEqualTo(40.0);
      assertThat(s.gpuMemoryBytes()).isNull();
      assertThat(s.cpuCores()).isPositive();
    });
    assertThat(controlPlane.samples("ses_b")).allSatisfy(s -> {
      assertThat(s.gpuUtilPercent()).as("no HAMi series for a pod without a GPU").isNull();
      assertThat(s.cpuCores()).isPositive();
      assertThat(s.memoryBytes()).isPositive();
    });
  }

  @Test
  void aMonitorThatDoesNotAnswerLeavesTheGpuFiguresOut() throws Exception {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    try (AutoCloseable agent = UsageAgent.start(config(GPU_NODE, "http://127.0.0.1:" + closed + "/metrics"), client,
        INTERVAL)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> controlPlane.samples("ses_a").size() >= 3);
    }
    assertThat(controlPlane.samples("ses_a")).allSatisfy(s -> {
      assertThat(s.gpuMemoryBytes()).isNull();
      assertThat(s.gpuUtilPercent()).isNull();
      assertThat(s.cpuCores()).isPositive();
    });
  }

  @Test
  void aControlPlaneErrorDropsThatPostAndTheLoopGoesOn() throws Exception {
    controlPlane.status.set(500);
    try (AutoCloseable agent = UsageAgent.start(config(GPU_NODE, null), client, INTERVAL)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> controlPlane.posts.size() >= 3);
      controlPlane.status.set(200);
      int refused = controlPlane.posts.size();
      await().atMost(Duration.ofSeconds(10)).until(() -> controlPlane.posts.size() >= refused + 3);
    }
    assertThat(controlPlane.samples("ses_a")).isNotEmpty().allSatisfy(s -> assertThat(s.gpuUtilPercent()).isNull());
  }

  private UsageAgentConfig config(String node, String hamiMonitorUrl) {
    return new UsageAgentConfig(URI.create(controlPlane.url()), tokenFile, node, cgroups,
        hamiMonitorUrl == null ? null : URI.create(hamiMonitorUrl), INTERVAL);
  }

  private static Pod pod(String name, String node, Map<String, String> labels) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("gshare-sessions").withLabels(labels)
        .addToAnnotations(node.equals(GPU_NODE) ? Map.of("nvidia.com/use-gpuuuid", gpu) : Map.of()).endMetadata()
        .withNewSpec().withNodeName(node).addNewContainer().withName("session").withImage("registry.example.com/x:1")
        .endContainer().endSpec().build();
  }

  private static String containerId(Pod pod) {
    String id = pod.getStatus().getContainerStatuses().get(0).getContainerID();
    assertThat(id).as("the runtime stand-in names its containers as a runtime does").contains("://");
    return CgroupSampler.containerId(id);
  }

  /** A cgroup's counters, each file replaced whole so the agent never reads one half written. */
  private static void write(Path dir, long usageUsec, long memoryBytes, String io) {
    try {
      Files.createDirectories(dir);
      for (Map.Entry<String, String> file : Map.of("cpu.stat", "usage_usec " + usageUsec + "\nuser_usec 0\nsystem_usec 0\n",
          "memory.current", memoryBytes + "\n", "io.stat", io).entrySet()) {
        Path tmp = Files.writeString(dir.resolve("." + file.getKey() + ".tmp"), file.getValue());
        Files.move(tmp, dir.resolve(file.getKey()), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static HttpServer serve(String path, String text) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(path, exchange -> {
      byte[] body = text.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    return server;
  }

  /** The control plane's live usage endpoint: records every post, answers {@link #status}. */
  private static final class ControlPlane implements AutoCloseable {
    record Post(String authorization, LiveUsage usage) {}

    final List<Post> posts = new CopyOnWriteArrayList<>();
    final AtomicInteger status = new AtomicInteger(200);
    private final HttpServer server;

    ControlPlane() throws IOException {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.createContext(InternalPaths.BASE + InternalPaths.LIVE_USAGE, exchange -> {
        LiveUsage usage = ControlPlaneClient.JSON.readValue(exchange.getRequestBody(), LiveUsage.class);
        posts.add(new Post(exchange.getRequestHeaders().getFirst("Authorization"), usage));
        int answer = status.get();
        byte[] body = (answer == 200 ? "{\"accepted\":" + usage.samples().size() + "}" : "{\"error\":\"boom\"}")
            .getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(answer, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
      });
      server.start();
    }

    String url() {
      return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    List<LiveUsage.SessionSample> samples(String sessionId) {
      return posts.stream().flatMap(p -> p.usage().samples().stream()).filter(s -> s.sessionId().equals(sessionId))
          .toList();
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }
}
