package io.gshare.sim;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.gshare.workflows.kube.LabelKeys;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A simulated GPU cluster: a Kubernetes API stand-in on a local port (the fabric8 mock server in CRUD
 * mode, plus discovery and a control API), seeded with HAMi-style GPU nodes, the add-ons gShare
 * checks for and StorageClasses, a kubelet simulator that runs the pods bound to its nodes (their
 * containers' cgroup v2 counters on disk, {@link SimulatedCgroups}), and a
 * storage simulator that provisions, binds, expands and reclaims their claims' volumes
 * ({@link ClaimAdmission}, {@link StorageController}). Everything it creates is
 * labelled {@value SimLabels#SIMULATED}.
 *
 * <p>Known gaps of the stand-in, which production code must not be bent around: server-side apply
 * without field ownership ({@link ServerSideApply}), strategic merge patch applied as a JSON merge patch
 * ({@link StrategicMergePatch}), JSON merge patch appends to arrays, no set-based label selectors in
 * queries, field selectors only on name, namespace and a pod list's {@code spec.nodeName}, eviction with
 * budgets computed at each eviction ({@link PodEviction}), no HTTP streaming watch (websocket watch
 * works), no admission but the claims' ({@link ClaimAdmission}), no RBAC enforcement, deletion is
 * immediate for objects without finalizers (a claim keeps {@code kubernetes.io/pvc-protection} while a pod
 * mounts it).
 */
public final class SimulatedCluster implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SimulatedCluster.class);

  /** The token the simulator's kubeconfig and service-account file carry; the stand-in accepts any. */
  public static final String TOKEN = "gshare-simulator-token";

  /**
   * @param name the simulated cluster's name, part of its GPU uuids
   * @param port 0 picks a free port
   * @param tick how often the kubelet simulator looks at pods and nodes
   * @param podStartDelay how long a bound pod stays Pending before it runs (an image pull, say)
   * @param cgroupRoot where the simulated cgroup v2 tree of the running containers is kept
   *     ({@link SimulatedCgroups}); null: a fresh temporary directory, deleted on close
   */
  public record Options(String name, String host, int port, Duration tick, Duration podStartDelay, Path cgroupRoot) {

    public Options(String name, String host, int port, Duration tick, Duration podStartDelay) {
      this(name, host, port, tick, podStartDelay, null);
    }

    public static Options defaults() {
      return new Options("sim", "127.0.0.1", 0, Duration.ofMillis(250), Duration.ofMillis(500));
    }

    public Options withPort(int newPort) {
      return new Options(name, host, newPort, tick, podStartDelay, cgroupRoot);
    }

    /** The cluster's name: GPU uuids derive from it, so two simulators never share a card. */
    public Options withName(String newName) {
      return new Options(newName, host, port, tick, podStartDelay, cgroupRoot);
    }

    /** Where a node agent reading cgroup counters finds them; the directory is made when missing. */
    public Options withCgroupRoot(Path root) {
      return new Options(name, host, port, tick, podStartDelay, root);
    }
  }

  private final SimSeed seed;
  private final String name;
  private final KubernetesMockServer server;
  private final ObjectStore store;
  private final KubeletSimulator kubelet;
  private final StorageController storage;
  private final GpuMetrics gpuMetrics;
  private final ApiFaults apiFaults = new ApiFaults();
  private final ServiceAccountTokens serviceAccountTokens;
  private final SimulatedCgroups cgroups;
  private final ScheduledExecutorService loop;
  private final AtomicInteger nodeOrdinal = new AtomicInteger();
  private final AtomicInteger checkpoints = new AtomicInteger();
  private final Clock clock = Clock.systemUTC();

  /** MockWebServer logs every request at INFO through java.util.logging; held so the level sticks. */
  private static final java.util.logging.Logger MOCK_SERVER_LOG =
      java.util.logging.Logger.getLogger(MockWebServer.class.getName());

  static {
    MOCK_SERVER_LOG.setLevel(java.util.logging.Level.WARNING);
  }

  private SimulatedCluster(SimSeed seed, Options options) {
    this.seed = seed;
    this.name = options.name();
    KubernetesSerialization serialization = new KubernetesSerialization();
    Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    KubernetesMixedDispatcher crud = new KubernetesMixedDispatcher(responses);
    // Every write, the simulator's own included, goes through the claims' admission, as on an apiserver.
    ClaimAdmission admission = new ClaimAdmission(crud, serialization);
    this.store = new ObjectStore(admission, serialization);
    this.serviceAccountTokens = new ServiceAccountTokens(clock);
    this.kubelet = new KubeletSimulator(store, clock, options.podStartDelay());
    this.storage = new StorageController(store, clock);
    this.gpuMetrics = new GpuMetrics(ClusterView.of(store), clock, kubelet::isDropped);
    this.cgroups = new SimulatedCgroups(ClusterView.of(store), options.cgroupRoot());
    admission.afterDelete(this::reconcileStorageQuietly);
    SimDispatcher front =
        new SimDispatcher(admission, serialization, seed.kubernetesVersion(), this::serverAddress, this);
    this.server = new KubernetesMockServer(new Context(), new MockWebServer(), responses, front, false);
    this.loop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "gshare-sim-kubelet");
              t.setDaemon(true);
              return t;
            });
    try {
      server.init(InetAddress.getByName(options.host()), options.port());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    seedObjects();
    loop.scheduleWithFixedDelay(this::tickQuietly, 0, options.tick().toMillis(), TimeUnit.MILLISECONDS);
    // The mock server records every request for test assertions; drain it so a long dev run stays small.
    loop.scheduleWithFixedDelay(this::forgetRecordedRequests, 5, 5, TimeUnit.SECONDS);
    cgroups.start();
    log.info("gShare simulated GPU cluster (not real hardware) serving the Kubernetes API at {}", url());
  }

  public static SimulatedCluster start(SimSeed seed, Options options) {
    return new SimulatedCluster(seed, options);
  }

  /** The seed the dev runtime uses: H100 exclusive node, A100 fractional node, CPU node. */
  public static SimSeed defaultSeed() {
    try (InputStream in = SimulatedCluster.class.getResourceAsStream("/sim/default-cluster.yaml")) {
      return readSeed(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static SimSeed readSeed(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return readSeed(in);
    }
  }

  public static SimSeed readSeed(InputStream yaml) {
    return new KubernetesSerialization().unmarshal(yaml, SimSeed.class);
  }

  public String url() {
    return "http://" + serverAddress();
  }

  public int port() {
    return server.getPort();
  }

  public SimSeed seed() {
    return seed;
  }

  private String serverAddress() {
    return "127.0.0.1:" + server.getPort();
  }

  /** A client for tests and tools; production code builds its own from configuration. */
  public KubernetesClient newClient() {
    return new KubernetesClientBuilder()
        .withConfig(new io.fabric8.kubernetes.client.ConfigBuilder()
            .withMasterUrl(url())
            .withOauthToken(TOKEN)
            .withNamespace("default")
            .build())
        .build();
  }

  /** Writes a kubeconfig for kubectl and for gShare's cluster registration; owner-only permissions. */
  public Path writeKubeconfig(Path file) throws IOException {
    String yaml =
        """
        # gShare SIMULATED GPU cluster (a Kubernetes API stand-in, not real hardware)
        apiVersion: v1
        kind: Config
        clusters:
        - name: gshare-sim
          cluster:
            server: %s
        contexts:
        - name: gshare-sim
          context:
            cluster: gshare-sim
            user: gshare-sim-admin
            namespace: default
        current-context: gshare-sim
        users:
        - name: gshare-sim-admin
          user:
            token: %s
        """
            .formatted(url(), TOKEN);
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, yaml);
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException ignored) {
      // not a POSIX file system; nothing to tighten
    }
    return file;
  }

  /** Adds a node as the bootstrap's join + label steps would; false when it already exists. */
  public boolean addNode(SimSeed.NodeSpec spec) {
    Node node = SimObjects.node(name, spec, nodeOrdinal.getAndIncrement(), seed.kubernetesVersion(), clock.instant());
    boolean created = store.create("/api/v1/nodes", node);
    if (created) {
      log.info("simulated node {} joined ({} GPUs)", spec.name(), spec.hasGpus() ? spec.gpus().count() : 0);
    }
    return created;
  }

  /** The node's kubelet stops posting status: the node turns Ready=Unknown and its pods not ready. */
  public void dropNode(String name) {
    kubelet.dropNode(name);
    tickQuietly();
  }

  public void restoreNode(String name) {
    kubelet.restoreNode(name);
    tickQuietly();
  }

  List<String> droppedNodes() {
    List<String> dropped = new ArrayList<>();
    store.list("/api/v1/nodes", io.fabric8.kubernetes.api.model.NodeList.class).getItems().forEach(n -> {
      if (kubelet.isDropped(n.getMetadata().getName())) {
        dropped.add(n.getMetadata().getName());
      }
    });
    return dropped;
  }

  /**
   * The kubelet checkpoint API: on a node labelled {@code gshare.io/criu=ready} and
   * {@code gshare.io/cuda-checkpoint=ready}, a running pod's container is "checkpointed" to an archive
   * named as the kubelet names it; elsewhere it is refused (empty).
   */
  public java.util.Optional<String> checkpoint(String node, String namespace, String pod, String container) {
    io.fabric8.kubernetes.api.model.Node n = store.get("/api/v1/nodes/" + node, io.fabric8.kubernetes.api.model.Node.class);
    io.fabric8.kubernetes.api.model.Pod p = store.get("/api/v1/namespaces/" + namespace + "/pods/" + pod,
        io.fabric8.kubernetes.api.model.Pod.class);
    if (n == null || p == null || !node.equals(p.getSpec().getNodeName()) || p.getStatus() == null
        || !"Running".equals(p.getStatus().getPhase())) {
      return java.util.Optional.empty();
    }
    if (!LabelKeys.checkpointReady(n.getMetadata().getLabels())) {
      return java.util.Optional.empty();
    }
    checkpoints.incrementAndGet();
    return java.util.Optional.of("/var/lib/kubelet/checkpoints/checkpoint-" + pod + "_" + namespace + "-" + container + "-"
        + clock.instant().toString().replace(':', '-') + ".tar");
  }

  /** How many checkpoints the simulated kubelets took (tests read it). */
  public int checkpointsTaken() {
    return checkpoints.get();
  }

  /** The pod's containers exit with an error on the next tick. */
  public void failPod(String namespace, String name, String reason) {
    kubelet.failPod(namespace, name, reason);
  }

  /**
   * Pulls of {@code image} (a reference exactly as pods name it) on {@code node} fail with {@code reason},
   * e.g. "no space left on device": pods using it there stay Pending in ErrImagePull. A null reason lifts it.
   */
  public void failImagePulls(String node, String image, String reason) {
    kubelet.failImagePulls(node, image, reason);
  }

  /** Creates an object as a client would; for tests that need extra state. */
  public void create(HasMetadata object) {
    store.create(collectionPath(object), object);
  }

  /**
   * Sets the bytes in use that the kubelet's stats summary reports for a claim's volume (0 until set);
   * false when the claim does not exist. Forgotten when the claim is deleted.
   */
  public boolean setVolumeUsedBytes(String namespace, String claim, long bytes) {
    return storage.setUsedBytes(namespace, claim, bytes);
  }

  /** The bytes in use the stats summary reports for a claim's volume. */
  public long volumeUsedBytes(String namespace, String claim) {
    return storage.usedBytes(namespace, claim);
  }

  /**
   * The kubelet stats summary of a node, as {@code GET /api/v1/nodes/<node>/proxy/stats/summary}
   * answers it; empty when the node does not exist.
   */
  java.util.Optional<Map<String, Object>> statsSummary(String node) {
    return storage.summary(node);
  }

  /**
   * Sets what the monitoring of a GPU reports (utilization percent, last Xid); false for an unknown GPU.
   * Tests use it to make a session's GPUs busy or idle.
   */
  public boolean setGpuMetrics(String uuid, double utilPercent, int xid) {
    return gpuMetrics.set(uuid, utilPercent, xid);
  }

  /** The simulated DCGM exporter's and HAMi monitor's metrics. */
  GpuMetrics gpuMetrics() {
    return gpuMetrics;
  }

  /** The objects as the apiserver stores them, through the claims' admission. */
  ObjectStore store() {
    return store;
  }

  /** The service-account tokens the TokenRequest subresource mints and the apiserver checks (scenario 14). */
  public ServiceAccountTokens serviceAccountTokens() {
    return serviceAccountTokens;
  }

  /** The apiserver failures injected into this cluster's API (the fault suite's scenario 6). */
  public ApiFaults apiFaults() {
    return apiFaults;
  }

  /** The root of the simulated cgroup v2 tree of the running containers (an absolute path). */
  public Path cgroupRoot() {
    return cgroups.root();
  }

  /**
   * Sets what a pod's containers do, together, from the next second on: CPU cores, memory bytes (the
   * {@code memory.current} gauge), bytes read and written per second; each finite and >= 0 (else
   * IllegalArgumentException). False when the pod does not exist.
   */
  public boolean setPodLoad(String namespace, String pod, double cpuCores, long memoryBytes,
      double ioReadBytesPerSecond, double ioWriteBytesPerSecond) {
    return cgroups.setLoad(namespace, pod,
        new SimulatedCgroups.Load(cpuCores, memoryBytes, ioReadBytesPerSecond, ioWriteBytesPerSecond));
  }

  /** The simulated cgroup tree. */
  SimulatedCgroups cgroups() {
    return cgroups;
  }

  /** The path of the simulated DCGM exporter's metrics under {@link #url()}, Prometheus text format. */
  public static final String DCGM_METRICS_PATH = "/sim/v1/dcgm/metrics";

  /** The path of the simulated HAMi vGPU monitor's metrics under {@link #url()}, Prometheus text format. */
  public static final String HAMI_METRICS_PATH = "/sim/v1/hami/metrics";

  boolean isDropped(String node) {
    return kubelet.isDropped(node);
  }

  private void seedObjects() {
    for (HasMetadata object : SimObjects.addons(seed.addons())) {
      store.create(collectionPath(object), object);
    }
    for (HasMetadata object : SimObjects.storage(seed.storageClasses())) {
      store.create(collectionPath(object), object);
    }
    seed.nodes().forEach(this::addNode);
  }

  private static String collectionPath(HasMetadata object) {
    String apiVersion = object.getApiVersion();
    String base = apiVersion.contains("/") ? "/apis/" + apiVersion : "/api/" + apiVersion;
    String plural = io.fabric8.kubernetes.api.model.HasMetadata.getPlural(object.getClass());
    if (object instanceof Namespaced) {
      return base + "/namespaces/" + object.getMetadata().getNamespace() + "/" + plural;
    }
    return base + "/" + plural;
  }

  private void tickQuietly() {
    try {
      kubelet.tick();
    } catch (RuntimeException e) {
      log.warn("kubelet simulator tick failed: {}", e.toString());
    }
    reconcileStorageQuietly();
  }

  private void reconcileStorageQuietly() {
    try {
      storage.reconcile();
    } catch (RuntimeException e) {
      log.warn("storage simulator pass failed: {}", e.toString());
    }
  }

  private void forgetRecordedRequests() {
    try {
      while (server.takeRequest(0, TimeUnit.MILLISECONDS) != null) {
        // dropped on purpose
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    loop.shutdownNow();
    cgroups.close();
    server.destroy();
    log.info("simulated GPU cluster at port {} stopped", server.getPort());
  }
}
