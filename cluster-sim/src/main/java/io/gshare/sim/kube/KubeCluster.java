package io.gshare.sim.kube;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.gshare.sim.ClusterView;
import io.gshare.sim.GpuMetrics;
import io.gshare.sim.SimSeed;
import io.gshare.sim.SimulatedCgroups;
import io.gshare.workflows.kube.LabelKeys;
import io.gshare.workflows.kube.SimulatorInfo;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A GPU cluster for the dev runtime and the tests, on a real Kubernetes: {@link LocalKubernetes} (etcd, the
 * apiserver, the controller-manager, the scheduler, KWOK as every node's kubelet), a seed's nodes as KWOK GPU nodes
 * ({@link GpuNodes}), and, for what has no Kubernetes counterpart here, simulators over the real API, each labelled
 * one: HAMi's scheduler ({@link HamiSchedulerStandIn}), the container runtime ({@link ContainerRuntimeStandIn}), the
 * CSI driver's provisioner and resizer ({@link ClaimProvisionerStandIn}), the kubelet's stats summary and checkpoint
 * API behind the apiserver's node proxy ({@link KubeletStandIn}), the DCGM exporter and HAMi's vGPU monitor
 * ({@link GpuMetrics}, on a loopback HTTP port) and the containers' cgroup counters ({@link SimulatedCgroups}). Where
 * those node-level parts are is published in the ConfigMap {@value SimulatorInfo#NAMESPACE}/{@value
 * SimulatorInfo#CONFIG_MAP}.
 */
public final class KubeCluster implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(KubeCluster.class);

  /**
   * @param name part of the GPUs' uuids, so two clusters never share a card
   * @param dataDir etcd's data, the PKI and the kubeconfigs; null: a temporary directory deleted on close
   * @param apiPort the apiserver's port; 0 picks a free one
   * @param cgroupRoot the simulated cgroup tree; null: a temporary directory
   * @param tick how often the simulators look at the cluster
   * @param faultProxy the API served through a {@link FaultProxy} (on {@code apiPort}), whose faults
   *     {@link #apiFaults()} injects
   */
  public record Options(String name, Path dataDir, int apiPort, Path cgroupRoot, Duration tick, boolean faultProxy) {
    public static Options defaults() {
      return new Options("sim", null, 0, null, Duration.ofMillis(250), false);
    }

    public Options withName(String newName) {
      return new Options(newName, dataDir, apiPort, cgroupRoot, tick, faultProxy);
    }

    public Options withDataDir(Path dir) {
      return new Options(name, dir, apiPort, cgroupRoot, tick, faultProxy);
    }

    public Options withApiPort(int port) {
      return new Options(name, dataDir, port, cgroupRoot, tick, faultProxy);
    }

    public Options withCgroupRoot(Path root) {
      return new Options(name, dataDir, apiPort, root, tick, faultProxy);
    }

    /** Clients reach the apiserver through a {@link FaultProxy}; the stand-ins still talk to it directly. */
    public Options withFaultProxy() {
      return new Options(name, dataDir, apiPort, cgroupRoot, tick, true);
    }
  }

  private final String name;
  private final SimSeed seed;
  private final LocalKubernetes kubernetes;
  private final KubernetesClient client;
  private final GpuNodes nodes;
  private final HamiSchedulerStandIn hami;
  private final ContainerRuntimeStandIn runtime;
  private final ClaimProvisionerStandIn storage;
  private final KubeletStandIn kubelets;
  private final GpuMetrics gpuMetrics;
  private final SimulatedCgroups cgroups;
  private final HttpServer exporters;
  /** Null unless started {@link Options#withFaultProxy()}. */
  private final FaultProxy proxy;
  private final Deque<AutoCloseable> started = new ArrayDeque<>();

  private KubeCluster(SimSeed seed, Options options) {
    this.name = options.name();
    this.seed = seed;
    try {
      // With the proxy, the given port is the proxy's (the one kubeconfigs name); the apiserver takes a free one.
      this.kubernetes = started(LocalKubernetes.start(LocalKubernetes.Options.defaults()
          .withDataDir(options.dataDir()).withApiPort(options.faultProxy() ? 0 : options.apiPort())));
      this.proxy = options.faultProxy() ? started(FaultProxy.start(kubernetes, options.apiPort())) : null;
      this.client = started(kubernetes.newClient());
      this.nodes = new GpuNodes(client, name);
      nodes.seed(seed, Duration.ofSeconds(60));
      this.hami = started(HamiSchedulerStandIn.start(client, options.tick()));
      this.runtime = started(ContainerRuntimeStandIn.start(client, options.tick()));
      this.storage = started(ClaimProvisionerStandIn.start(client, options.tick()));
      this.kubelets = started(KubeletStandIn.start(client, kubernetes, storage::usedBytes, options.tick()));
      this.gpuMetrics = new GpuMetrics(ClusterView.of(client), Clock.systemUTC(), node -> false);
      this.cgroups = started(new SimulatedCgroups(ClusterView.of(client), options.cgroupRoot()));
      cgroups.start();
      this.exporters = serve(Map.of("/dcgm/metrics", gpuMetrics::dcgm, "/hami/metrics", gpuMetrics::hami));
      started(() -> exporters.stop(0));
      publishInfo();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    log.info("gShare GPU cluster {} on a real Kubernetes {} at {} (KWOK nodes, simulated GPUs, not real hardware)",
        name, kubernetes.serverVersion(), url());
  }

  public static KubeCluster start(SimSeed seed, Options options) {
    return new KubeCluster(seed, options);
  }

  private <T extends AutoCloseable> T started(T part) {
    started.push(part);
    return part;
  }

  /** The simulated exporters on a loopback port: each path answers Prometheus text made on each request. */
  private static HttpServer serve(Map<String, Supplier<String>> paths) {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
      paths.forEach((path, body) -> server.createContext(path, exchange -> answer(exchange, body.get())));
      server.start();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void answer(HttpExchange exchange, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    exchange.sendResponseHeaders(200, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private void publishInfo() {
    client.resource(new ConfigMapBuilder().withNewMetadata().withName(SimulatorInfo.CONFIG_MAP)
        .withNamespace(SimulatorInfo.NAMESPACE).addToLabels(LabelKeys.SIMULATED, LabelKeys.TRUE).endMetadata()
        .addToData(SimulatorInfo.CGROUP_ROOT, cgroups.root().toString())
        .addToData(SimulatorInfo.HAMI_MONITOR_URL, exporterUrl("/hami/metrics"))
        .addToData(SimulatorInfo.DCGM_METRICS_URL, exporterUrl("/dcgm/metrics"))
        .build()).fieldManager("gshare-simulator").forceConflicts().serverSideApply();
  }

  private String exporterUrl(String path) {
    return "http://127.0.0.1:" + exporters.getAddress().getPort() + path;
  }

  public String name() {
    return name;
  }

  public SimSeed seed() {
    return seed;
  }

  /** The apiserver's URL (the fault proxy's, when it is on). */
  public String url() {
    return proxy != null ? proxy.url() : kubernetes.url();
  }

  public LocalKubernetes kubernetes() {
    return kubernetes;
  }

  /** An admin client for tests and tools; production code builds its own from the kubeconfig. */
  public KubernetesClient newClient() {
    return proxy == null ? kubernetes.newClient()
        : new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(adminKubeconfig())).build();
  }

  /** The admin's kubeconfig, naming the fault proxy when it is on. */
  private String adminKubeconfig() {
    try {
      String kubeconfig = Files.readString(kubernetes.kubeconfig());
      // The apiserver's URL appears once, as the cluster's server; its port is unique on this machine.
      return proxy == null ? kubeconfig : kubeconfig.replace(kubernetes.url(), proxy.url());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The injected apiserver failures; only with {@link Options#withFaultProxy()}. */
  public ApiFaultQueue apiFaults() {
    if (proxy == null) {
      throw new IllegalStateException("cluster " + name + " was started without the fault proxy");
    }
    return proxy.faults();
  }

  /** The fault proxy; null unless started {@link Options#withFaultProxy()}. */
  public FaultProxy faultProxy() {
    return proxy;
  }

  /** Writes the admin's kubeconfig (for kubectl and for gShare's attach) to {@code file}; owner-only. */
  public Path writeKubeconfig(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, adminKubeconfig());
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException ignored) {
      // not a POSIX file system; nothing to tighten
    }
    return file;
  }

  /** The simulated DCGM exporter's metrics URL (every node's GPUs). */
  public String dcgmMetricsUrl() {
    return exporterUrl("/dcgm/metrics");
  }

  /** The simulated HAMi vGPU monitor's metrics URL. */
  public String hamiMonitorUrl() {
    return exporterUrl("/hami/metrics");
  }

  public Path cgroupRoot() {
    return cgroups.root();
  }

  /** HAMi's scheduler stand-in ({@link HamiSchedulerStandIn#restart()} plays a restart of HAMi). */
  public HamiSchedulerStandIn hami() {
    return hami;
  }

  /**
   * The node's kubelet goes silent, as on a host or network loss: its lease is taken from KWOK (held by another
   * holder for an hour), so KWOK neither renews it nor plays the node's or its pods' status, and the real node
   * lifecycle controller marks the node unreachable after {@link LocalKubernetes#NODE_MONITOR_GRACE}.
   */
  public void dropNode(String hostname) {
    setNodeLease(hostname, Instant.now(), 3600);
  }

  /** The dropped node's kubelet comes back: its lease expired, KWOK takes it again and the node turns Ready. */
  public void restoreNode(String hostname) {
    setNodeLease(hostname, Instant.now().minus(Duration.ofHours(1)), 1);
  }

  private void setNodeLease(String hostname, Instant renewed, int seconds) {
    var lease = nodeLease(hostname);
    if (lease.get() == null) {
      throw new IllegalArgumentException("no node lease for " + hostname);
    }
    // KWOK renews the lease every few seconds: a renewal between this read and write is a 409 conflict, and the
    // write is made again on the newer lease (as client-go's RetryOnConflict does).
    for (int attempt = 1; ; attempt++) {
      try {
        lease.edit(l -> {
          l.getSpec().setHolderIdentity(DROPPED_NODE_HOLDER);
          l.getSpec().setLeaseDurationSeconds(seconds);
          l.getSpec().setRenewTime(ZonedDateTime.ofInstant(renewed, ZoneOffset.UTC));
          return l;
        });
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 5) {
          throw e;
        }
      }
    }
  }

  /** The node's heartbeat: the Lease its kubelet (here KWOK) renews in {@code kube-node-lease}. */
  private Resource<Lease> nodeLease(String hostname) {
    return client.resources(Lease.class).inNamespace("kube-node-lease").withName(hostname);
  }

  /** Who holds a dropped node's lease instead of KWOK. */
  static final String DROPPED_NODE_HOLDER = "gshare-dropped-node";

  /** Adds a node as the bootstrap's join and label steps would; false when it exists. */
  public boolean addNode(SimSeed.NodeSpec spec) {
    // A node dropped and then deleted may leave its lease held away from KWOK; a machine that joins again under the
    // same name starts with a fresh one, as a new kubelet would.
    var lease = nodeLease(spec.name());
    var left = lease.get();
    if (left != null && DROPPED_NODE_HOLDER.equals(left.getSpec().getHolderIdentity())) {
      lease.delete();
    }
    return nodes.add(spec, seed.kubernetesVersion());
  }

  /** Sets a GPU's utilization (percent) and last Xid; false for an unknown GPU. */
  public boolean setGpuMetrics(String uuid, double utilPercent, int xid) {
    return gpuMetrics.set(uuid, utilPercent, xid);
  }

  /** Sets what a pod's containers do from the next second on; false when the pod does not exist. */
  public boolean setPodLoad(String namespace, String pod, double cpuCores, long memoryBytes,
      double ioReadBytesPerSecond, double ioWriteBytesPerSecond) {
    return cgroups.setLoad(namespace, pod,
        new SimulatedCgroups.Load(cpuCores, memoryBytes, ioReadBytesPerSecond, ioWriteBytesPerSecond));
  }

  /** The pod's containers exit with an error on the next pass. */
  public void failPod(String namespace, String name, String reason) {
    runtime.failPod(namespace, name, reason);
  }

  /**
   * Pulls of {@code reference} on {@code node} fail with {@code message} (containerd's words, e.g. "no space left on
   * device"): pods that pull it there stay Pending in ErrImagePull. A null message lifts it.
   */
  public void failImagePulls(String node, String reference, String message) {
    runtime.failImagePulls(node, reference, message);
  }

  /** Sets the bytes in use the kubelet's stats summary reports for a claim's volume; false without the claim. */
  public boolean setVolumeUsedBytes(String namespace, String claim, long bytes) {
    return storage.setUsedBytes(namespace, claim, bytes);
  }

  /** How many checkpoints the stand-in kubelets took. */
  public int checkpointsTaken() {
    return kubelets.checkpointsTaken();
  }

  @Override
  public void close() {
    while (!started.isEmpty()) {
      try {
        started.pop().close();
      } catch (Exception e) {
        log.warn("stopping a part of cluster {} failed: {}", name, e.toString());
      }
    }
  }
}
