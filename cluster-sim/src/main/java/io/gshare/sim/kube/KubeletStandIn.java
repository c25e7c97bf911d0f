package io.gshare.sim.kube;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.EphemeralContainer;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gshare.workflows.kube.LabelKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToLongBiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A SIMULATOR of the part of a node's kubelet API that gShare calls through the apiserver's node proxy and that
 * KWOK does not serve: no kubelet runs here, KWOK plays the rest of each node's kubelet (Ready, the lease, running
 * the pods) and is started without a server of its own. For every node KWOK plays (annotated
 * {@value LocalKubernetes#KWOK_NODE_ANNOTATION}={@value LocalKubernetes#KWOK_NODE_VALUE}) it serves one small HTTPS
 * server, as a kubelet serves its port 10250, and publishes it in the node's status as the kubelet does, so that
 * the real apiserver's {@code /api/v1/nodes/<node>/proxy/<path>} reaches it:
 *
 * <ul>
 *   <li>{@code GET /stats/summary}: the Summary API, reduced to the node's name and, per Running pod bound to the node, its {@code podRef} and the stats of
 *       its PersistentVolumeClaim volumes whose claim is Bound: {@code pvcRef}, {@code capacityBytes} (the claim's
 *       {@code status.capacity}), {@code usedBytes} (from the function given at start) and {@code availableBytes}.
 *   <li>{@code POST /checkpoint/<namespace>/<pod>/<container>} (the ContainerCheckpoint API, KEP-2008): a running
 *       container of a pod bound to this node, on a node whose labels pass {@link LabelKeys#checkpointReady}, is
 *       "checkpointed" (nothing is dumped) and answered {@code {"items":["/var/lib/kubelet/checkpoints/checkpoint-
 *       <pod>_<namespace>-<container>-<RFC 3339 time>.tar"]}}, the archive named as the kubelet names it. Refusals
 *       carry the kubelet's codes and words (plain text): 404 {@code pod does not exist} (no such pod on this node),
 *       404 {@code container <c> does not exist}, 404 {@code cannot parse value of timeout parameter}, 500
 *       {@code checkpointing of <ns>/<pod>/<c> failed (container <c> not found)} (not running: the kubelet looks
 *       among running containers), and 500 {@code checkpointing of ... failed (}{@value #NOT_SUPPORTED}{@code )} on
 *       a node without CRIU and cuda-checkpoint ready (the simulator's words for the runtime's refusal).
 * </ul>
 *
 * <p>What it writes into each node's status, and why. {@code daemonEndpoints.kubeletEndpoint.Port}: every KWOK node
 * here has the same IP, so each gets its own port. The {@code Hostname} address, set to a non-loopback address of
 * this machine, as a kubelet started with {@code --hostname-override=<address>} reports it: the apiserver dials the
 * Hostname address first (its default {@code --kubelet-preferred-address-types}) and refuses to proxy to an address
 * that is not global unicast ("address not allowed"), so neither KWOK's Hostname (the node's name, which does not
 * resolve) nor its InternalIP ({@code 127.0.0.1}) can be reached. The InternalIP is left as KWOK wrote it, so pods'
 * {@code hostIP} is unchanged. KWOK's node stages write {@code daemonEndpoints} only {@code {{ with NodePort }}}
 * (LocalKubernetes gives KWOK no node port) and add addresses only of a type the node lacks, so they keep both.
 *
 * <p>Like a kubelet started with {@code --client-ca-file}, it accepts only clients presenting a certificate of the
 * cluster CA (the apiserver's {@code --kubelet-client-certificate}); it authorizes nothing further (the only client
 * is the apiserver). Its serving certificates are signed by the cluster CA; the apiserver does not check them, as
 * LocalKubernetes sets no {@code --kubelet-certificate-authority}. A node deleted loses its server.
 */
public final class KubeletStandIn implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(KubeletStandIn.class);

  /** Where the kubelet writes checkpoint archives ({@code --root-dir}'s {@code checkpoints}). */
  public static final String CHECKPOINTS_DIR = "/var/lib/kubelet/checkpoints";
  /** The runtime's refusal on a node without CRIU and cuda-checkpoint, in the fabric8 simulator's words. */
  public static final String NOT_SUPPORTED =
      "checkpointing is not supported on this node (CRIU and cuda-checkpoint are not ready)";
  private static final Pattern CHECKPOINT = Pattern.compile("/checkpoint/([^/]+)/([^/]+)/([^/]+)/?");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final char[] KEYSTORE_PASSWORD = "kubelet".toCharArray();

  private final KubernetesClient client;
  private final KubePki pki;
  private final ToLongBiFunction<String, String> usedBytes;
  private final InetAddress address;
  private final Clock clock;
  private final Map<String, HttpsServer> servers = new ConcurrentHashMap<>();
  private final AtomicInteger checkpoints = new AtomicInteger();
  private final ExecutorService handlers;
  private final ScheduledExecutorService loop;
  /** When to pass: the kinds it reads changed, or {@link ChangeTrigger#IDLE_PASS} went by. */
  private final ChangeTrigger changes;

  private KubeletStandIn(KubernetesClient client, KubePki pki, ToLongBiFunction<String, String> usedBytes,
      InetAddress address, Duration tick, Clock clock) {
    this.client = client;
    this.pki = pki;
    this.usedBytes = usedBytes == null ? (namespace, claim) -> 0L : usedBytes;
    this.address = address;
    this.clock = clock;
    this.handlers = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "gshare-sim-kubelet-http");
      t.setDaemon(true);
      return t;
    });
    this.loop = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "gshare-sim-kubelet");
      t.setDaemon(true);
      return t;
    });
    this.changes = new ChangeTrigger()
        .watching(client.nodes());
    loop.scheduleWithFixedDelay(() -> {
      if (changes.due()) {
        passQuietly();
      }
    }, 0, tick.toMillis(), TimeUnit.MILLISECONDS);
    log.info("kubelet stand-in (a simulator; no kubelet runs here, KWOK plays the rest) serves stats/summary and "
        + "checkpoint for every KWOK node on {}, one port per node", address.getHostAddress());
  }

  /**
   * Starts the stand-in for {@code kube}'s KWOK nodes; it looks at nodes every {@code tick}.
   *
   * @param admin a client that may list nodes, pods and claims and patch nodes' status
   * @param usedBytes bytes in use per claim (namespace, claim name), as the summary reports them; null: 0
   */
  public static KubeletStandIn start(KubernetesClient admin, LocalKubernetes kube,
      ToLongBiFunction<String, String> usedBytes, Duration tick) {
    return start(admin, kube.pki(), usedBytes, tick);
  }

  /** As {@link #start(KubernetesClient, LocalKubernetes, ToLongBiFunction, Duration)}, with the cluster's PKI. */
  static KubeletStandIn start(KubernetesClient admin, KubePki pki, ToLongBiFunction<String, String> usedBytes,
      Duration tick) {
    return new KubeletStandIn(admin, pki, usedBytes, proxyableAddress(), tick, Clock.systemUTC());
  }

  /** How many checkpoints the stand-in's kubelets took (tests read it). */
  public int checkpointsTaken() {
    return checkpoints.get();
  }

  /** The port that serves {@code node}'s kubelet API; empty while it has none (unknown yet, or deleted). */
  public OptionalInt port(String node) {
    HttpsServer server = servers.get(node);
    return server == null ? OptionalInt.empty() : OptionalInt.of(server.getAddress().getPort());
  }

  /** The address every node's server listens on, published as the nodes' Hostname address. */
  public InetAddress address() {
    return address;
  }

  /**
   * An address of this machine the apiserver will proxy to: up, not loopback, link-local or multicast (Go's
   * {@code IsGlobalUnicast}), IPv4 first. Private ranges qualify.
   */
  static InetAddress proxyableAddress() {
    List<InetAddress> candidates = new ArrayList<>();
    try {
      for (NetworkInterface nic : NetworkInterface.networkInterfaces().toList()) {
        if (!nic.isUp() || nic.isLoopback()) {
          continue;
        }
        nic.inetAddresses().filter(a -> !a.isLoopbackAddress() && !a.isLinkLocalAddress() && !a.isAnyLocalAddress()
            && !a.isMulticastAddress()).forEach(candidates::add);
      }
    } catch (SocketException e) {
      throw new UncheckedIOException(e);
    }
    return candidates.stream().min(Comparator.comparing(a -> a instanceof Inet4Address ? 0 : 1))
        .orElseThrow(() -> new IllegalStateException("this machine has no non-loopback address: the apiserver's node "
            + "proxy refuses to dial 127.0.0.1 (\"address not allowed\"), so the kubelet stand-in cannot be reached"));
  }

  private void passQuietly() {
    try {
      pass();
    } catch (KubernetesClientException | IllegalStateException | UncheckedIOException e) {
      log.warn("kubelet stand-in pass failed: {}", e.toString());
    } catch (RuntimeException e) {
      log.warn("kubelet stand-in pass failed", e);
    }
  }

  /** One pass: a server for every KWOK node, published in its status; the servers of deleted nodes stopped. */
  synchronized void pass() {
    Set<String> present = new HashSet<>();
    for (Node node : client.nodes().list().getItems()) {
      Map<String, String> annotations = node.getMetadata().getAnnotations();
      if (annotations == null || !LocalKubernetes.KWOK_NODE_VALUE.equals(
          annotations.get(LocalKubernetes.KWOK_NODE_ANNOTATION))) {
        continue; // no one plays this node's kubelet
      }
      String name = node.getMetadata().getName();
      present.add(name);
      try {
        HttpsServer server = servers.computeIfAbsent(name, this::serve);
        publish(node, server.getAddress().getPort());
      } catch (RuntimeException e) {
        log.warn("kubelet stand-in: node {} not served yet: {}", name, e.toString());
      }
    }
    for (String name : Set.copyOf(servers.keySet())) {
      if (!present.contains(name)) {
        HttpsServer gone = servers.remove(name);
        gone.stop(0);
        log.info("kubelet stand-in: node {} deleted, its server on port {} stopped", name,
            gone.getAddress().getPort());
      }
    }
  }

  /** Writes the Hostname address and kubelet port into the node's status, as the kubelet does, when they differ. */
  private void publish(Node node, int port) {
    String host = address.getHostAddress();
    List<NodeAddress> addresses = node.getStatus() == null || node.getStatus().getAddresses() == null ? List.of()
        : node.getStatus().getAddresses();
    String hostname = addresses.stream().filter(a -> "Hostname".equals(a.getType())).map(NodeAddress::getAddress)
        .findFirst().orElse(null);
    Integer published = node.getStatus() == null || node.getStatus().getDaemonEndpoints() == null
        || node.getStatus().getDaemonEndpoints().getKubeletEndpoint() == null ? null
        : node.getStatus().getDaemonEndpoints().getKubeletEndpoint().getPort();
    if (host.equals(hostname) && Objects.equals(published, port)) {
      return;
    }
    // A strategic merge patch merges addresses by type: only Hostname is replaced, KWOK's InternalIP stays.
    Map<String, Object> status = Map.of(
        "addresses", List.of(Map.of("type", "Hostname", "address", host)),
        "daemonEndpoints", Map.of("kubeletEndpoint", Map.of("Port", port)));
    client.nodes().withName(node.getMetadata().getName()).subresource("status")
        .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), json(Map.of("status", status)));
    log.info("kubelet stand-in: node {} published at https://{}", node.getMetadata().getName(),
        new InetSocketAddress(address, port).toString().replaceFirst("^/", ""));
  }

  private HttpsServer serve(String node) {
    try {
      HttpsServer server = HttpsServer.create(new InetSocketAddress(address, 0), 16);
      SSLContext tls = tls(node);
      server.setHttpsConfigurator(new HttpsConfigurator(tls) {
        @Override
        public void configure(HttpsParameters params) {
          SSLParameters parameters = tls.getDefaultSSLParameters();
          parameters.setNeedClientAuth(true); // the kubelet's --client-ca-file: the apiserver must show its certificate
          params.setSSLParameters(parameters);
        }
      });
      server.setExecutor(handlers);
      server.createContext("/", exchange -> handle(node, exchange));
      server.start();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no TLS for the kubelet of " + node, e);
    }
  }

  /**
   * The node's serving certificate (kept in the PKI's directory under the node's name; a kept one made for another
   * address still serves, the apiserver does not verify it) and the cluster CA as the only trusted client issuer.
   */
  private SSLContext tls(String node) throws IOException, GeneralSecurityException {
    KubePki.Pair serving = pki.serving("kubelet-" + node, List.of(node), List.of(address.getHostAddress()));
    X509Certificate certificate = KubePki.Pem.readCertificate(serving.certificate());
    X509Certificate ca = KubePki.Pem.readCertificate(pki.caCertificate());
    KeyStore keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    keys.setKeyEntry("kubelet", KubePki.Pem.readKeyPair(serving.key()).getPrivate(), KEYSTORE_PASSWORD,
        new Certificate[] {certificate, ca});
    KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys, KEYSTORE_PASSWORD);
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    trusted.load(null, null);
    trusted.setCertificateEntry("cluster-ca", ca);
    TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trusted);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
    return tls;
  }

  /** An answer: status code, content type and body. */
  record Answer(int code, String contentType, String body) {
    static Answer text(int code, String body) {
      return new Answer(code, "text/plain; charset=utf-8", body);
    }

    static Answer json(String body) {
      return new Answer(200, "application/json", body);
    }
  }

  private void handle(String node, HttpExchange exchange) {
    try {
      exchange.getRequestBody().readAllBytes();
      String path = exchange.getRequestURI().getPath();
      String method = exchange.getRequestMethod();
      Answer answer;
      Matcher checkpoint = CHECKPOINT.matcher(path);
      if (path.equals("/stats/summary") || path.equals("/stats/summary/")) {
        answer = "GET".equals(method) ? Answer.json(json(summary(node))) : Answer.text(405, "405: Method Not Allowed");
      } else if (checkpoint.matches()) {
        answer = "POST".equals(method)
            ? checkpoint(node, checkpoint.group(1), checkpoint.group(2), checkpoint.group(3),
                query(exchange.getRequestURI().getRawQuery(), "timeout"))
            : Answer.text(405, "405: Method Not Allowed");
      } else {
        answer = Answer.text(404, "404 page not found");
      }
      respond(exchange, answer);
    } catch (RuntimeException | IOException e) {
      log.warn("kubelet stand-in of {}: {} {} failed: {}", node, exchange.getRequestMethod(),
          exchange.getRequestURI(), e.toString());
      try {
        respond(exchange, Answer.text(500, "internal error: " + e.getMessage()));
      } catch (IOException | RuntimeException ignored) {
        // the answer may already be under way; the connection is closed below
      }
    } finally {
      exchange.close();
    }
  }

  private static void respond(HttpExchange exchange, Answer answer) throws IOException {
    byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", answer.contentType());
    exchange.sendResponseHeaders(answer.code(), body.length);
    exchange.getResponseBody().write(body);
  }

  /**
   * The kubelet's checkpoint handler (pkg/kubelet/server/server.go) and {@code Kubelet.CheckpointContainer}, in
   * their order: the pod among the node's pods, the container in its spec, the timeout, the container among the
   * running ones, then the runtime.
   */
  Answer checkpoint(String node, String namespace, String podName, String container, List<String> timeouts) {
    Pod pod = client.pods().inNamespace(namespace).withName(podName).get();
    if (pod == null || !node.equals(pod.getSpec().getNodeName())) {
      return Answer.text(404, "pod does not exist");
    }
    if (!declares(pod, container)) {
      return Answer.text(404, "container " + container + " does not exist");
    }
    if (!timeouts.isEmpty()) {
      try {
        Long.parseLong(timeouts.get(timeouts.size() - 1));
      } catch (NumberFormatException e) {
        return Answer.text(404, "cannot parse value of timeout parameter");
      }
    }
    String failed = "checkpointing of " + namespace + "/" + podName + "/" + container + " failed (";
    if (!running(pod, container)) {
      return Answer.text(500, failed + "container " + container + " not found)");
    }
    Node n = client.nodes().withName(node).get();
    if (n == null || !LabelKeys.checkpointReady(n.getMetadata().getLabels())) {
      return Answer.text(500, failed + NOT_SUPPORTED + ")");
    }
    checkpoints.incrementAndGet();
    String archive = CHECKPOINTS_DIR + "/checkpoint-" + podName + "_" + namespace + "-" + container + "-"
        + clock.instant().truncatedTo(ChronoUnit.SECONDS) + ".tar";
    log.info("kubelet stand-in of {}: checkpointed {}/{}/{} to {} (simulated: nothing was dumped)", node, namespace,
        podName, container, archive);
    return Answer.json(json(Map.of("items", List.of(archive))));
  }

  private static boolean declares(Pod pod, String container) {
    Stream<String> names = Stream.of(
        pod.getSpec().getContainers() == null ? Stream.<String>empty()
            : pod.getSpec().getContainers().stream().map(Container::getName),
        pod.getSpec().getInitContainers() == null ? Stream.<String>empty()
            : pod.getSpec().getInitContainers().stream().map(Container::getName),
        pod.getSpec().getEphemeralContainers() == null ? Stream.<String>empty()
            : pod.getSpec().getEphemeralContainers().stream().map(EphemeralContainer::getName))
        .flatMap(s -> s);
    return names.anyMatch(container::equals);
  }

  private static boolean running(Pod pod, String container) {
    if (pod.getStatus() == null || !"Running".equals(pod.getStatus().getPhase())) {
      return false;
    }
    List<ContainerStatus> statuses = new ArrayList<>();
    for (List<ContainerStatus> some : Arrays.asList(pod.getStatus().getContainerStatuses(),
        pod.getStatus().getInitContainerStatuses(), pod.getStatus().getEphemeralContainerStatuses())) {
      if (some != null) {
        statuses.addAll(some);
      }
    }
    return statuses.stream().anyMatch(s -> container.equals(s.getName()) && s.getState() != null
        && s.getState().getRunning() != null);
  }

  /**
   * The Summary API of the node, reduced to what gShare reads: the node's name and start, and per Running pod bound to it its reference and the stats of its volumes of Bound claims.
   */
  Map<String, Object> summary(String nodeName) {
    Node node = client.nodes().withName(nodeName).get();
    String now = clock.instant().toString();
    Map<String, PersistentVolumeClaim> claims = new HashMap<>();
    List<Map<String, Object>> pods = new ArrayList<>();
    for (Pod pod : client.pods().inAnyNamespace().withField("spec.nodeName", nodeName).list().getItems()) {
      if (pod.getStatus() == null || !"Running".equals(pod.getStatus().getPhase())) {
        continue;
      }
      String namespace = pod.getMetadata().getNamespace();
      List<Map<String, Object>> volumes = new ArrayList<>();
      for (Volume v : pod.getSpec().getVolumes() == null ? List.<Volume>of() : pod.getSpec().getVolumes()) {
        if (v.getPersistentVolumeClaim() == null) {
          continue;
        }
        String claimName = v.getPersistentVolumeClaim().getClaimName();
        PersistentVolumeClaim claim = claims.computeIfAbsent(namespace + "/" + claimName,
            k -> client.persistentVolumeClaims().inNamespace(namespace).withName(claimName).get());
        Quantity capacity = claim == null || claim.getStatus() == null || claim.getStatus().getCapacity() == null
            ? null : claim.getStatus().getCapacity().get("storage");
        if (capacity == null || !"Bound".equals(claim.getStatus().getPhase())) {
          continue; // the kubelet reports mounted volumes only, and an unbound claim mounts nothing
        }
        long capacityBytes = Quantity.getAmountInBytes(capacity).min(BigDecimal.valueOf(Long.MAX_VALUE)).longValue();
        long used = usedBytes.applyAsLong(namespace, claimName);
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("time", now);
        stats.put("availableBytes", Math.max(0, capacityBytes - used));
        stats.put("capacityBytes", capacityBytes);
        stats.put("usedBytes", used);
        stats.put("name", v.getName());
        stats.put("pvcRef", Map.of("name", claimName, "namespace", namespace));
        volumes.add(stats);
      }
      Map<String, Object> entry = new LinkedHashMap<>();
      Map<String, Object> ref = new LinkedHashMap<>();
      ref.put("name", pod.getMetadata().getName());
      ref.put("namespace", namespace);
      ref.put("uid", pod.getMetadata().getUid());
      entry.put("podRef", ref);
      if (pod.getStatus().getStartTime() != null) {
        entry.put("startTime", pod.getStatus().getStartTime());
      }
      if (!volumes.isEmpty()) {
        entry.put("volume", volumes);
      }
      pods.add(entry);
    }
    Map<String, Object> nodeStats = new LinkedHashMap<>();
    nodeStats.put("nodeName", nodeName);
    if (node != null && node.getMetadata().getCreationTimestamp() != null) {
      nodeStats.put("startTime", node.getMetadata().getCreationTimestamp());
    }
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("node", nodeStats);
    summary.put("pods", pods);
    return summary;
  }

  /** Every value of {@code name} in a raw query string, in order. */
  private static List<String> query(String rawQuery, String name) {
    List<String> values = new ArrayList<>();
    if (rawQuery == null) {
      return values;
    }
    for (String pair : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      if (key.equals(name)) {
        values.add(eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return values;
  }

  private static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Stops the loop and every node's server; the nodes keep what was published, as after a kubelet stops. */
  @Override
  public void close() {
    loop.shutdownNow();
    changes.close();
    synchronized (this) {
      servers.values().forEach(s -> s.stop(0));
      servers.clear();
    }
    handlers.shutdownNow();
  }
}
