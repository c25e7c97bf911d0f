package io.gshare.dev;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.client.ApiCallException;
import io.gshare.client.ApiProblemException;
import io.gshare.client.GshareClient;
import io.gshare.client.cluster.Cluster;
import io.gshare.client.operation.Operation;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.KubeCluster;
import io.gshare.sim.kube.LoopbackPorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * gShare with everything embedded: PostgreSQL, the Temporal dev server, one or more simulated GPU
 * clusters, and the api with its control worker. Each simulated cluster is registered through the
 * public API and attached by the real attach workflow, which starts its cluster-worker as a local
 * process. The api and the cluster-workers run as the same jars as in production; only what they
 * connect to is local. Unless {@code --no-demo}, the demo data ({@link DemoCatalogue}) is then seeded
 * through the same API. Closing stops everything in reverse order.
 *
 * <p>With {@code --api-replicas} 2 or more, the api runs as that many processes, each with its control worker and its
 * own HTTP, management and gateway ports, on the same PostgreSQL (its signing keys there too) and Temporal, behind
 * nginx ({@link ApiFront}): {@link #apiUrl()} and {@link #temporalGatewayAddress()} are the front's, and the
 * cluster-workers outlive the replica that started them, as Deployments outlive an api pod.
 */
public final class DevRuntime implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DevRuntime.class);

  /** A GPU cluster, a real Kubernetes with KWOK nodes, and what the api calls it. */
  public record AttachedCluster(String id, String name, String sessionDomain, KubeCluster kube, Path kubeconfig) {

    /** An admin client of the cluster's Kubernetes API. */
    public KubernetesClient newClient() {
      return kube.newClient();
    }

    /** The cluster's Kubernetes API. */
    public String apiUrl() {
      return kube.url();
    }

    /** What answers that API, in the banner's words. */
    public String apiKind() {
      return "Kubernetes " + kube.kubernetes().serverVersion() + " (KWOK nodes, simulated GPUs"
          + (kube.faultProxy() != null ? "; behind the fault proxy)" : ")");
    }
  }

  private final DevRuntimeOptions options;
  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  private final boolean temporaryDataDir;
  private final Path dataDir;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final Path stateFile;
  private final List<AttachedCluster> clusters = new ArrayList<>();
  private String dbUrl;
  private String temporalAddress;
  private String temporalUiUrl;
  /** The embedded dev server and how to start it again (null with an external Temporal). */
  private EmbeddedTemporal temporal;
  private EmbeddedDatabase database;
  private Supplier<EmbeddedTemporal> temporalFactory;
  private String oidcIssuer;
  /** The api processes: one, or the replicas behind {@link #front}. */
  private final List<Replica> replicas = new ArrayList<>();
  /** nginx in front of two or more replicas; null with one api. */
  private ApiFront front;
  /** Set when the runtime closes: the api's exit is then no crash to restart from. */
  private volatile boolean stopping;
  /** Attaches the clusters again after a replica's restart, one attach at a time, beside the traffic. */
  private final ExecutorService reattacher = Executors.newSingleThreadExecutor(task -> {
    Thread thread = new Thread(task, "dev-reattach");
    thread.setDaemon(true);
    return thread;
  });
  private String adminToken;
  private GshareClient apiClient;
  private SimSeed seed;
  private DemoCatalogue.Demo demo;
  private DevIngress ingress;
  private int ingressPort;
  private int gatewayPort;

  /**
   * One api process: its ports, kept across its restarts (its workers and the front reach it there), how to start it,
   * and when it was restarted after a crash, newest last (a crash loop gives up, as CrashLoopBackOff would not).
   */
  private static final class Replica {
    final String name;
    final int httpPort;
    final int managementPort;
    final int gatewayPort;
    final Deque<Instant> restarts = new ArrayDeque<>();
    Supplier<ChildProcess> factory;
    volatile ChildProcess process;

    Replica(String name, int httpPort, int managementPort, int gatewayPort) {
      this.name = name;
      this.httpPort = httpPort;
      this.managementPort = managementPort;
      this.gatewayPort = gatewayPort;
    }

    String url() {
      return "http://127.0.0.1:" + httpPort;
    }
  }

  private DevRuntime(DevRuntimeOptions options) throws IOException {
    this.options = options;
    this.stateFile = options.stateFile().toAbsolutePath();
    this.temporaryDataDir = options.dataDir() == null;
    this.dataDir = temporaryDataDir ? Files.createTempDirectory("gshare-dev-") : options.dataDir().toAbsolutePath();
    Files.createDirectories(dataDir);
  }

  /** Starts every part, or stops what it started and rethrows. */
  public static DevRuntime start(DevRuntimeOptions options) throws IOException {
    DevRuntime runtime = new DevRuntime(options);
    try {
      runtime.startAll();
      return runtime;
    } catch (RuntimeException | IOException e) {
      runtime.close();
      throw e;
    }
  }

  private void startAll() throws IOException {
    if (options.dbUrl() != null) {
      dbUrl = options.dbUrl();
      log.info("PostgreSQL: using {}", dbUrl);
    } else {
      database = new EmbeddedDatabase(dataDir.resolve("postgres"), options.postgresPort());
      started.push(() -> database.close());
      dbUrl = database.jdbcUrl();
      log.info("PostgreSQL: embedded on 127.0.0.1:{} (data in {})", database.port(), dataDir.resolve("postgres"));
    }

    if (options.temporalAddress() != null) {
      temporalAddress = options.temporalAddress();
      log.info("Temporal: using {}", temporalAddress);
    } else {
      // With a kept data directory the server keeps its workflows and Schedules across restarts.
      Path database = temporaryDataDir ? null : dataDir.resolve("temporal.db");
      temporalFactory = () -> new EmbeddedTemporal(options.temporalCli(), options.temporalPort(),
          options.temporalUiPort(), database,
          options.logDir() == null ? null : options.logDir().toAbsolutePath().resolve("temporal.log"));
      temporal = temporalFactory.get();
      started.push(() -> temporal.close());
      temporalAddress = temporal.address();
      temporalUiUrl = temporal.uiUrl();
      log.info("Temporal: dev server on {}, Web UI {} ({})", temporalAddress, temporalUiUrl,
          database == null ? "in memory" : "state in " + database);
    }

    EmbeddedOidcProvider oidc = EmbeddedOidcProvider.start(options.oidcPort());
    started.push(oidc);
    oidcIssuer = oidc.issuer();
    log.info("OpenID Connect: the embedded provider at {} (any user name; claims on its login page)", oidcIssuer);

    if (!options.noIngress()) {
      // Before the api: its session URLs name the ingress's port.
      ingressPort = options.ingressPort() == 0 ? DevIngress.freePort() : options.ingressPort();
      ingress = DevIngress.start(options.nginx(), ingressPort, apiUrl(), dataDir.resolve("ingress"), this::clusters);
      started.push(ingress);
      log.info("ingress: nginx on 127.0.0.1:{} answers the session URLs of *.localhost", ingressPort);
    }

    Path keyDir = dataDir.resolve("keys");
    Files.deleteIfExists(adminTokenFile());
    boolean replicated = options.apiReplicas() > 1;
    for (int i = 0; i < options.apiReplicas(); i++) {
      // One api keeps the named ports; replicas take free ones, and the front the named ones.
      replicas.add(replicated
          ? new Replica("api-" + i, LoopbackPorts.free(), i == 0 ? options.managementPort() : LoopbackPorts.free(),
              LoopbackPorts.free())
          : new Replica("api", options.httpPort(), options.managementPort(), gatewayPort()));
    }
    if (replicated) {
      front = ApiFront.start(options.nginx(), options.httpPort(), replicas.stream().map(r -> r.httpPort).toList(),
          gatewayPort(), replicas.stream().map(r -> r.gatewayPort).toList(),
          // Its access log beside the api's output, when that goes to files: it says which replica answered what.
          options.logDir() == null ? dataDir.resolve("front") : options.logDir().toAbsolutePath().resolve("front"));
      started.push(front);
      log.info("api: {} replicas behind nginx on {} (HTTP) and {} (their Temporal gateways)", replicas.size(), apiUrl(),
          temporalGatewayAddress());
      // Pushed before the replicas, so closed after them: the workers they share stop with the runtime.
      started.push(this::stopSharedWorkers);
    }
    List<String> args = new ArrayList<>(List.of(
        "--gshare.temporal.address=" + temporalAddress,
        "--gshare.dev.admin-token-file=" + adminTokenFile(),
        // Simulated clusters listen on 127.0.0.1: the one place a loopback kubeconfig is allowed.
        "--gshare.dev.allow-loopback-kubeconfig=true",
        // The simulated kubelet runs any image: checkpoint images are "built" and "pushed" by a pod that completes.
        "--gshare.sessions.checkpoint-builder-image=registry.example.com/tools/buildah:1",
        "--gshare.security.key-dir=" + keyDir,
        // Attach starts each cluster's worker as a local process from the production jar; it reaches Temporal only
        // through the api's gateway, with its operator token. A port kept across an api restart: running workers
        // reconnect to it.
        "--gshare.cluster-worker.deploy=local-process",
        "--gshare.temporal-gateway.enabled=true",
        "--gshare.temporal-gateway.bind-address=127.0.0.1",
        "--gshare.cluster-worker.local.jar=" + options.workerJar().toAbsolutePath(),
        "--gshare.cluster-worker.local.state-dir=" + dataDir.resolve("workers"),
        "--gshare.cluster-worker.control-plane-url=" + apiUrl(),
        "--gshare.cluster-worker.inventory-interval-seconds=5",
        // The live usage chart: one local agent per simulated cluster samples the simulator's cgroup tree.
        "--gshare.cluster-worker.agent.enabled=true",
        // Browser sign-in through the embedded provider; the role claim its login page lets a developer set.
        "--gshare.oidc.issuer-uri=" + oidcIssuer,
        "--gshare.oidc.client-id=" + EmbeddedOidcProvider.CLIENT_ID,
        "--gshare.oidc.client-secret=" + EmbeddedOidcProvider.CLIENT_SECRET,
        "--gshare.oidc.role-claim=" + EmbeddedOidcProvider.ROLE_CLAIM,
        "--gshare.oidc.admin-values=" + EmbeddedOidcProvider.ADMIN_VALUE,
        "--gshare.oidc.super-admin-values=" + EmbeddedOidcProvider.SUPER_ADMIN_VALUE,
        "--server.address=127.0.0.1",
        "--management.server.address=127.0.0.1"));
    if (temporalUiUrl != null) {
      args.add("--gshare.temporal.ui-url=" + temporalUiUrl);
    }
    if (ingress != null) {
      // The loopback ingress answers plain HTTP on its own port: session URLs say so.
      args.add("--gshare.sessions.url-scheme=http");
      args.add("--gshare.sessions.url-port=" + ingressPort);
    }
    if (options.logDir() != null) {
      args.add("--gshare.cluster-worker.local.log-dir=" + options.logDir().toAbsolutePath());
    }
    if (replicated) {
      // Tokens one replica signs verify on every other: the key sets in PostgreSQL. The key directory is shared, as
      // the chart's Secret is (the data key and the gateway's seal); the first replica writes it before the others
      // start. The workers reach Temporal through the front, and outlive the replica whose activity started them.
      args.add("--gshare.security.key-store=database");
      args.add("--gshare.cluster-worker.temporal-gateway=true");
      args.add("--gshare.cluster-worker.temporal-address=" + temporalGatewayAddress());
      args.add("--gshare.cluster-worker.local.shared=true");
    }
    seed = options.seed() == null ? SimSeed.defaultSeed() : SimSeed.read(options.seed());
    // The clusters start while the api does: neither needs the other before the attach, and both mostly wait
    // (etcd and the apiserver on their disk and each other, the api on its migrations and Temporal).
    CompletableFuture<List<KubeCluster>> kubes = CompletableFuture.supplyAsync(this::startClusters, task -> {
      Thread thread = new Thread(task, "dev-clusters-start");
      thread.setDaemon(true);
      thread.start();
    });
    try {
      for (Replica replica : replicas) {
        List<String> own = new ArrayList<>(args);
        own.addAll(List.of("--server.port=" + replica.httpPort, "--management.server.port=" + replica.managementPort,
            "--gshare.temporal-gateway.port=" + replica.gatewayPort));
        // In place of the runtime's own setting of the same key: Spring Boot would join repeated arguments with commas.
        for (String property : options.apiProperties()) {
          String key = property.substring(0, property.indexOf('='));
          own.removeIf(arg -> arg.startsWith("--" + key + "="));
          own.add("--" + property);
        }
        replica.factory = () -> ChildProcess.startJar(replica.name, options.apiJar(), List.of(options.localDeployerJar()),
            List.of("-Xmx768m", "-XX:TieredStopAtLevel=1"), own, Map.of("GSHARE_DB_URL", dbUrl, "GSHARE_DB_USER",
                options.dbUser(), "GSHARE_DB_PASSWORD", options.dbPassword()), options.logDir());
      }
      started.push(() -> {
        stopping = true;
        // Stopped together: each takes its graceful shutdown's time.
        List<Thread> stops = new ArrayList<>();
        for (Replica replica : replicas) {
          ChildProcess process = replica.process;
          if (process != null) {
            Thread stop = new Thread(process::close, "stop-" + replica.name);
            stop.start();
            stops.add(stop);
          }
        }
        for (Thread stop : stops) {
          stop.join();
        }
      });
      Replica first = replicas.get(0);
      first.process = first.factory.get();
      awaitApi(first, Duration.ofSeconds(180));
      awaitFile(adminTokenFile(), Duration.ofSeconds(60));
      adminToken = Files.readString(adminTokenFile()).trim();
      apiClient = new GshareClient(URI.create(apiUrl()), adminToken).userAgent("gshare-dev-runtime")
          .timeout(Duration.ofSeconds(120));
      // The other replicas once the first has written the shared keys and migrated the database; they start while
      // the clusters attach through the front, which sends every request to a replica that listens.
      for (Replica replica : replicas.subList(1, replicas.size())) {
        replica.process = replica.factory.get();
      }
    } catch (RuntimeException | IOException e) {
      try {
        kubes.join().forEach(KubeCluster::close);
      } catch (CompletionException alsoFailed) {
        e.addSuppressed(alsoFailed.getCause());
      }
      throw e;
    }
    List<KubeCluster> ready;
    try {
      ready = kubes.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException cause ? cause : e;
    }
    for (KubeCluster kube : ready) {
      started.push(kube);
    }
    for (Replica replica : replicas.subList(1, replicas.size())) {
      awaitApi(replica, Duration.ofSeconds(180));
    }
    for (KubeCluster kube : ready) {
      String name = kube.name();
      Path kubeconfig = kube.writeKubeconfig(dataDir.resolve(name + ".kubeconfig"));
      // *.localhost: browsers and curl resolve it to loopback, where the ingress listens; no DNS set-up.
      String domain = "gshare." + name + ".localhost";
      clusters.add(new AttachedCluster(attach(name, Files.readString(kubeconfig), domain), name, domain, kube, kubeconfig));
    }
    writeStateFile(keyDir);
    if (options.noDemo()) {
      log.info("demo data: not seeded (--no-demo)");
    } else {
      // After the attach: the offerings follow the GPU models and modes the workers report.
      demo = seedDemo();
    }
  }

  /**
   * Seeds the demo data ({@link DemoCatalogue}) through the API, or finds it: a second call adds nothing.
   * A failed call is logged and listed in the answer's problems; it does not stop the runtime.
   */
  public DemoCatalogue.Demo seedDemo() {
    return new DemoCatalogue(apiClient, dataDir).seed(seed);
  }

  /** The demo data seeded at start; null with {@code --no-demo}. */
  public DemoCatalogue.Demo demo() {
    return demo;
  }

  /**
   * Registers the simulated cluster through the API (or attaches it again when a kept data directory
   * already knows it) and waits for the attach workflow to finish; returns its id.
   */
  private String attach(String name, String kubeconfig, String domain) throws IOException {
    Cluster existing = null;
    for (Cluster cluster : call("listing clusters", () -> apiClient.clusters().list()).items()) {
      if (name.equals(cluster.name())) {
        existing = cluster;
      }
    }
    Cluster.Accepted accepted = existing == null
        ? call("registering cluster " + name, () -> apiClient.clusters().register(new Cluster.NewCluster(name,
            kubeconfig, domain, null, "registry." + domain + ":5000/gshare-checkpoints", null)))
        : reattach(existing, domain);
    String id = accepted.cluster().id();
    String operation = accepted.operation().id();
    log.info("attaching simulated cluster {} as {} (operation {})", name, id, operation);
    Instant deadline = Instant.now().plus(Duration.ofSeconds(240));
    while (Instant.now().isBefore(deadline)) {
      Operation state = call("reading operation " + operation, () -> apiClient.operations().get(operation));
      switch (String.valueOf(state.status())) {
        case Operation.COMPLETED:
          return id;
        case Operation.FAILED:
          throw new IllegalStateException("attaching " + name + " failed: " + state.error());
        default:
          sleep(Duration.ofSeconds(1));
      }
    }
    throw new IllegalStateException("attaching " + name + " did not finish within 240s");
  }

  /** Attaches a cluster a kept data directory knows, first moving it to this runtime's session domain if it differs. */
  private Cluster.Accepted reattach(Cluster existing, String domain) throws IOException {
    String id = existing.id();
    if (!domain.equals(existing.sessionDomain())) {
      log.info("moving cluster {} from session domain {} to {}", id, existing.sessionDomain(), domain);
      call("moving cluster " + id + " to " + domain,
          () -> apiClient.clusters().update(id, Map.of("session_domain", domain)));
    }
    return call("attaching cluster " + id, () -> apiClient.clusters().attach(id));
  }

  /**
   * One call of the API as the super admin; a refusal or a failed call is an IOException naming what was done and,
   * when the API refused it, the problem's status, code and detail ({@link DemoCatalogue#refusal}).
   */
  private static <T> T call(String what, Supplier<T> call) throws IOException {
    try {
      return call.get();
    } catch (ApiProblemException e) {
      throw new IOException(what + ": " + DemoCatalogue.refusal(e), e);
    } catch (ApiCallException e) {
      throw new IOException(what + ": " + e.getMessage(), e);
    }
  }

  /**
   * Tells tools started later (hack/bootstrap-superadmin.sh) where this runtime's database and keys
   * are: {@code --state-file}, by default {@code .gshare-dev/runtime.env} in the working directory, removed on stop.
   */
  private void writeStateFile(Path keyDir) throws IOException {
    Files.createDirectories(stateFile.getParent());
    Files.writeString(stateFile, String.join("\n",
        "# written by the gShare dev runtime (pid " + ProcessHandle.current().pid() + "); removed when it stops",
        "GSHARE_API_URL=" + apiUrl(),
        "GSHARE_DATA_DIR=" + dataDir,
        "GSHARE_DB_URL=" + dbUrl,
        "GSHARE_DB_USER=" + options.dbUser(),
        "GSHARE_DB_PASSWORD=" + options.dbPassword(),
        "GSHARE_SECURITY_KEY_DIR=" + keyDir,
        "GSHARE_TEMPORAL_ADDRESS=" + temporalAddress,
        "GSHARE_TEMPORAL_UI_URL=" + (temporalUiUrl == null ? "" : temporalUiUrl),
        "GSHARE_SIM_KUBECONFIG=" + clusters.get(0).kubeconfig(),
        "GSHARE_API_JAR=" + options.apiJar().toAbsolutePath(),
        ""));
    started.push(() -> Files.deleteIfExists(stateFile));
  }

  private Path adminTokenFile() {
    return dataDir.resolve("admin.token");
  }

  private void awaitFile(Path file, Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    while (!Files.exists(file)) {
      if (Instant.now().isAfter(deadline) || !replicas.get(0).process.isAlive()) {
        throw new IllegalStateException("the api did not write " + file + " within " + timeout.toSeconds() + "s");
      }
      sleep(Duration.ofMillis(200));
    }
  }

  /** Until the replica itself (not the front) answers {@code /healthz}. */
  private void awaitApi(Replica replica, Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline)) {
      ChildProcess api = replica.process;
      if (!api.isAlive()) {
        throw new IllegalStateException("the " + replica.name + " process exited with code " + api.process().exitValue()
            + " during start" + (options.logDir() == null ? "" : "; see " + options.logDir().resolve(replica.name + ".log")));
      }
      try {
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(replica.url() + "/healthz"))
            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
        if (health.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the api", e);
      }
      sleep(Duration.ofMillis(500));
    }
    throw new IllegalStateException("the " + replica.name + " process did not answer /healthz within "
        + timeout.toSeconds() + "s");
  }

  /**
   * Stops the embedded Temporal server and starts it again on the same ports and database, as an operator restarts
   * the server (the fault suite's scenario 5). The api and the workers reconnect on their own. Only with a kept data
   * directory: an in-memory server would come back empty.
   */
  public void restartTemporal() {
    if (temporal == null || temporaryDataDir) {
      throw new IllegalStateException("restarting Temporal keeps its state only with --data-dir and the embedded server");
    }
    temporal.close();
    temporal = temporalFactory.get();
  }

  /**
   * Stops the embedded PostgreSQL server (a fast shutdown: open transactions roll back, connections drop), leaves it
   * down for {@code downtime}, and starts it again on the same port and data directory, as a database failover or
   * restart would (the fault suite's scenario 4). The api's connection pool reconnects on its own.
   */
  public void restartPostgres(Duration downtime) {
    if (database == null) {
      throw new IllegalStateException("only the embedded PostgreSQL can be restarted");
    }
    int port = database.port();
    database.close();
    sleep(downtime);
    database = new EmbeddedDatabase(dataDir.resolve("postgres"), port);
    log.info("PostgreSQL: restarted on 127.0.0.1:{} after {} s down", port, downtime.toSeconds());
  }

  /** Runs the connection test of a cluster: the round trip api → Temporal → cluster-worker → apiserver. */
  public Cluster.ConnectionTest connectionTest(String clusterId) throws IOException {
    return call("testing cluster " + clusterId, () -> apiClient.clusters().connectionTest(clusterId));
  }

  /** A client of this runtime's API calling as the super admin; {@link GshareClient#as} calls as another user. */
  public GshareClient api() {
    return apiClient;
  }

  /** A super admin's API token, for the banner and for tests. */
  public String adminToken() {
    return adminToken;
  }

  /** The api's management server (the first replica's): health and metrics, no token, loopback only. */
  public String managementUrl() {
    return "http://127.0.0.1:" + options.managementPort();
  }

  /** How many api processes run (1, or the replicas behind the front). */
  public int apiReplicas() {
    return replicas.size();
  }

  /** A replica's own HTTP address, past the front (the same as {@link #apiUrl()} with one api). */
  public String apiReplicaUrl(int replica) {
    return replicas.get(replica).url();
  }

  /** A replica's own Temporal gateway, past the front. */
  public String temporalGatewayAddress(int replica) {
    return "127.0.0.1:" + replicas.get(replica).gatewayPort;
  }

  /** The front's access log (a line per request: the replicas tried, what each answered); null with one api. */
  public Path frontAccessLog() {
    return front == null ? null : front.accessLog();
  }

  /**
   * The Temporal gateway's port, picked once per runtime so a restarted api keeps it (its workers reconnect there):
   * below the ephemeral range, where no outgoing connection takes it before a restarted api binds it again, and none
   * of the ports the options name (free, perhaps, but not yet bound).
   */
  private synchronized int gatewayPort() {
    if (gatewayPort == 0) {
      // Not Set.of: ports left 0 (picked later) repeat.
      Set<Integer> named = new HashSet<>(List.of(options.httpPort(), options.managementPort(), options.temporalPort(),
          options.temporalUiPort(), options.postgresPort(), options.simulatorPort(), options.simulatorPort() + 1,
          options.oidcPort(), options.ingressPort(), ingressPort));
      int port = LoopbackPorts.free();
      while (named.contains(port)) {
        port = LoopbackPorts.free();
      }
      gatewayPort = port;
    }
    return gatewayPort;
  }

  public String apiUrl() {
    return "http://127.0.0.1:" + options.httpPort();
  }

  public String temporalAddress() {
    return temporalAddress;
  }

  /**
   * The api's Temporal gateway, where the cluster-workers reach Temporal with their operator tokens: with replicas, the
   * front's gRPC port, in front of each one's gateway.
   */
  public String temporalGatewayAddress() {
    return "127.0.0.1:" + gatewayPort();
  }

  /** The embedded OpenID Connect provider's issuer. */
  public String oidcIssuer() {
    return oidcIssuer;
  }

  /** Where a cluster's session URLs start: {@code http://<domain>:<ingress port>}, or {@code https://<domain>} without an ingress. */
  public String sessionOrigin(AttachedCluster cluster) {
    return ingress == null ? "https://" + cluster.sessionDomain() : "http://" + cluster.sessionDomain() + ":" + ingressPort;
  }

  /** Whether session URLs open here (an ingress runs). */
  public boolean hasIngress() {
    return ingress != null;
  }

  /** Where a browser signs in. */
  public String signInUrl() {
    return apiUrl() + "/auth/login";
  }

  /** The Temporal Web UI of the dev server, or null when an external Temporal is used. */
  public String temporalUiUrl() {
    return temporalUiUrl;
  }

  public String dbUrl() {
    return dbUrl;
  }

  public Path dataDir() {
    return dataDir;
  }

  public List<AttachedCluster> clusters() {
    return List.copyOf(clusters);
  }

  /**
   * An api process that is no longer running and will not be restarted, or null. An api that exits is started
   * again, as its Deployment would restart it ({@link #superviseApi}); only a crash loop (more than
   * {@link #MAX_API_RESTARTS} restarts of one replica in {@link #RESTART_WINDOW}) leaves it dead and stops the runtime.
   */
  ChildProcess deadChild() {
    for (Replica replica : replicas) {
      ChildProcess current = replica.process;
      if (current != null && !current.isAlive() && !supervise(replica)) {
        return current;
      }
    }
    return null;
  }

  static final int MAX_API_RESTARTS = 5;
  static final Duration RESTART_WINDOW = Duration.ofMinutes(5);

  /** Restarts every api process that exited; false when one is in a crash loop (or the runtime is stopping). */
  boolean superviseApi() {
    boolean ok = !stopping;
    for (Replica replica : replicas) {
      ok &= supervise(replica);
    }
    return ok;
  }

  /** Restarts the replica if it exited; false when it is in a crash loop (or the runtime is stopping). */
  private synchronized boolean supervise(Replica replica) {
    ChildProcess current = replica.process;
    if (stopping || current == null || current.isAlive()) {
      return !stopping;
    }
    Instant now = Instant.now();
    while (!replica.restarts.isEmpty() && replica.restarts.peekFirst().isBefore(now.minus(RESTART_WINDOW))) {
      replica.restarts.pollFirst();
    }
    if (replica.restarts.size() >= MAX_API_RESTARTS) {
      log.error("the {} process exited (code {}) for the {}th time in {}; not restarting it again", replica.name,
          current.process().exitValue(), replica.restarts.size() + 1, RESTART_WINDOW);
      return false;
    }
    log.warn("the {} process exited (code {}); restarting it, as its Deployment would", replica.name,
        current.process().exitValue());
    replica.restarts.addLast(now);
    startAgain(replica);
    return true;
  }

  /**
   * Starts the replica again and waits until it answers. With one api its local workers exited with it (in a cluster
   * they are Deployments of their own and keep running): the clusters are attached again, which starts them as the
   * attach that made them did, before the api counts as back. Replicas share their workers, which outlive them and
   * keep working meanwhile: a cluster is attached again (in the background) only when its worker is gone, since an
   * attach takes the cluster out of placement while it runs.
   */
  private void startAgain(Replica replica) {
    replica.process = replica.factory.get();
    awaitApi(replica, Duration.ofSeconds(180));
    if (replicas.size() == 1) {
      reattach(replica, clusters);
    } else {
      reattacher.execute(() -> reattach(replica, clusters.stream().filter(c -> sharedWorker(c.id()).isEmpty()).toList()));
    }
  }

  /** The live cluster-worker the replicas share for the cluster, by its pid file; empty when it is gone. */
  private Optional<ProcessHandle> sharedWorker(String clusterId) {
    return livePidFile(dataDir.resolve("workers").resolve(clusterId).resolve("worker.pid"));
  }

  /**
   * The process a pid file of the local deployer names ({@code <pid> <start, epoch milliseconds>}), while it is that
   * process (its start within a second of the one written, so that a pid reused since is not taken for it).
   */
  private static Optional<ProcessHandle> livePidFile(Path file) {
    try {
      String[] words = Files.readString(file).trim().split("\\s+");
      long started = Long.parseLong(words[1]);
      return ProcessHandle.of(Long.parseLong(words[0])).filter(ProcessHandle::isAlive)
          .filter(p -> Math.abs(p.info().startInstant().map(Instant::toEpochMilli).orElse(0L) - started) < 1_000);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private void reattach(Replica replica, List<AttachedCluster> which) {
    for (AttachedCluster cluster : which) {
      if (stopping) {
        return;
      }
      try {
        attach(cluster.name(), Files.readString(cluster.kubeconfig()), cluster.sessionDomain());
      } catch (IOException | RuntimeException e) {
        log.error("re-attaching {} after the {} process's restart failed: {}", cluster.name(), replica.name, e.toString());
      }
    }
  }

  /** Kills the api (the first replica) at once, as a crash or an OOM kill would (the fault suite); the supervision starts it again. */
  public void killApi() {
    killApi(0);
  }

  /** Kills one api replica at once (SIGKILL), as a crash or an OOM kill would; the supervision starts it again. */
  public void killApi(int replica) {
    log.warn("killing the {} process (SIGKILL)", replicas.get(replica).name);
    replicas.get(replica).process.kill();
  }

  /**
   * Restarts one api replica as a rolling update does: a graceful stop (SIGTERM: it stops taking connections, ends the
   * requests it has, and its control worker stops polling), then a new process on the same ports, until it answers,
   * and the clusters attached again. The other replicas serve meanwhile.
   */
  public synchronized void restartApi(int replica) {
    Replica target = replicas.get(replica);
    log.info("restarting the {} process (graceful stop, then start), as a rolling update does", target.name);
    target.process.close();
    startAgain(target);
  }

  /** Starts the runtime's clusters, one after another; on a failure closes those already started and rethrows. */
  private List<KubeCluster> startClusters() {
    List<KubeCluster> kubes = new ArrayList<>();
    try {
      for (int i = 1; i <= options.clusters(); i++) {
        String name = i == 1 ? "sim" : "sim-" + i;
        int port = options.simulatorPort() + i - 1;
        // Its own directory in the data directory: etcd's data, the CA and the kubeconfig outlive a restart, and the
        // fixed port keeps the kubeconfig the api holds valid.
        KubeCluster.Options kubeOptions = KubeCluster.Options.defaults().withName(name)
            .withDataDir(dataDir.resolve("kubernetes").resolve(name)).withApiPort(port)
            .withCgroupRoot(dataDir.resolve("cgroups").resolve(name));
        kubes.add(KubeCluster.start(seed, options.faultProxy() ? kubeOptions.withFaultProxy() : kubeOptions));
      }
      return kubes;
    } catch (RuntimeException e) {
      kubes.forEach(KubeCluster::close);
      throw e;
    }
  }

  /** Waits until every killed api process was started again and answers (the fault suite). */
  public void awaitApiRestarted(Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline)) {
      if (superviseApi() && replicas.stream().allMatch(r -> r.process.isAlive())) {
        for (Replica replica : replicas) {
          awaitApi(replica, Duration.between(Instant.now(), deadline));
        }
        return;
      }
      sleep(Duration.ofMillis(200));
    }
    throw new IllegalStateException("the api did not come back within " + timeout.toSeconds() + " s");
  }

  long apiPid() {
    return apiPid(0);
  }

  /** A replica's process id. */
  public long apiPid(int replica) {
    return replicas.get(replica).process.pid();
  }

  /**
   * Stops the cluster-workers and usage agents the replicas share, by the pid files the local deployer writes beside
   * their files ({@code <data dir>/workers/<cluster>/worker.pid}, {@code agent.pid}: the pid and the process's start,
   * so that a pid reused since is not taken for it). They would exit with this process anyway; a test JVM runs on.
   */
  private void stopSharedWorkers() {
    Path workers = dataDir.resolve("workers");
    if (!Files.isDirectory(workers)) {
      return;
    }
    List<ProcessHandle> live = new ArrayList<>();
    try (Stream<Path> files = Files.walk(workers, 2)) {
      files.filter(f -> f.getFileName().toString().endsWith(".pid")).forEach(f -> livePidFile(f).ifPresent(live::add));
    } catch (IOException e) {
      log.warn("could not list {}: {}", workers, e.toString());
    }
    live.forEach(ProcessHandle::destroy);
    for (ProcessHandle process : live) {
      try {
        process.onExit().get(15, TimeUnit.SECONDS);
      } catch (Exception e) {
        process.destroyForcibly();
      }
    }
  }

  @Override
  public void close() {
    stopping = true;
    reattacher.shutdownNow();
    while (!started.isEmpty()) {
      AutoCloseable part = started.pop();
      try {
        part.close();
      } catch (Exception e) {
        log.warn("stopping {} failed: {}", part.getClass().getSimpleName(), e.toString());
      }
    }
    if (temporaryDataDir) {
      deleteRecursively(dataDir);
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      log.debug("could not remove {}: {}", dir, e.toString());
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
