package io.gshare.dev;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.sim.SimSeed;
import io.gshare.sim.SimulatedCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * gShare with everything embedded: PostgreSQL, the Temporal dev server, a simulated GPU cluster, the
 * api with its control worker, and one cluster-worker for the simulated cluster. The api and the
 * cluster-worker run as the same jars and processes as in production; only what they connect to is
 * local. Closing stops everything in reverse order.
 */
public final class DevRuntime implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DevRuntime.class);

  public static final String SIM_CLUSTER_ID = "clu_sim";
  public static final String SIM_CLUSTER_NAME = "sim";
  public static final String SIM_SESSION_DOMAIN = "gshare.sim.example.com";

  private final DevRuntimeOptions options;
  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  private final boolean temporaryDataDir;
  private final Path dataDir;
  private final ObjectMapper json = new ObjectMapper();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private String dbUrl;
  private String temporalAddress;
  private SimulatedCluster cluster;
  private Path kubeconfig;
  private ChildProcess api;
  private ChildProcess worker;
  private String adminToken;
  private final Path stateFile = Path.of(".gshare-dev", "runtime.env").toAbsolutePath();

  private DevRuntime(DevRuntimeOptions options) throws IOException {
    this.options = options;
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
      EmbeddedDatabase db = new EmbeddedDatabase(dataDir.resolve("postgres"), options.postgresPort());
      started.push(db);
      dbUrl = db.jdbcUrl();
      log.info("PostgreSQL: embedded on 127.0.0.1:{} (data in {})", db.port(), dataDir.resolve("postgres"));
    }

    if (options.temporalAddress() != null) {
      temporalAddress = options.temporalAddress();
      log.info("Temporal: using {}", temporalAddress);
    } else {
      EmbeddedTemporal temporal = new EmbeddedTemporal(options.temporalPort());
      started.push(temporal);
      temporalAddress = temporal.address();
      log.info("Temporal: embedded dev server on {} (in memory: a restart forgets running workflows)", temporalAddress);
    }

    SimSeed seed = options.seed() == null ? SimulatedCluster.defaultSeed() : SimulatedCluster.readSeed(options.seed());
    cluster = SimulatedCluster.start(seed, SimulatedCluster.Options.defaults().withPort(options.simulatorPort()));
    started.push(cluster);
    kubeconfig = cluster.writeKubeconfig(dataDir.resolve("sim.kubeconfig"));
    Path serviceAccountToken = dataDir.resolve("sim-serviceaccount").resolve("token");
    Files.createDirectories(serviceAccountToken.getParent());
    Files.writeString(serviceAccountToken, SimulatedCluster.TOKEN);

    Path keyDir = dataDir.resolve("keys");
    Path workerToken = dataDir.resolve("worker-secret").resolve("internal-jwt");
    Files.deleteIfExists(workerToken);
    Files.deleteIfExists(adminTokenFile());
    api = ChildProcess.startJar("api", options.apiJar(),
        List.of("-Xmx768m", "-XX:TieredStopAtLevel=1"),
        List.of(
            "--gshare.temporal.address=" + temporalAddress,
            // The embedded server never hands a sticky task back: without this a killed worker strands workflows.
            "--gshare.temporal.sticky-schedule-to-start=0s",
            "--gshare.temporal.workflow-cache-size=0",
            "--gshare.dev.simulated-cluster.id=" + SIM_CLUSTER_ID,
            "--gshare.dev.simulated-cluster.name=" + SIM_CLUSTER_NAME,
            "--gshare.dev.simulated-cluster.session-domain=" + SIM_SESSION_DOMAIN,
            // The attach workflow writes this Secret in a real cluster; the worker reads it the same way.
            "--gshare.dev.simulated-cluster.token-file=" + workerToken,
            "--gshare.dev.admin-token-file=" + adminTokenFile(),
            "--gshare.security.key-dir=" + keyDir,
            "--server.address=127.0.0.1",
            "--server.port=" + options.httpPort()),
        Map.of("GSHARE_DB_URL", dbUrl, "GSHARE_DB_USER", options.dbUser(), "GSHARE_DB_PASSWORD", options.dbPassword()),
        options.logDir());
    started.push(api);
    awaitApi(Duration.ofSeconds(180));
    awaitFile(workerToken, Duration.ofSeconds(60));
    awaitFile(adminTokenFile(), Duration.ofSeconds(60));
    adminToken = Files.readString(adminTokenFile()).trim();

    // The cluster-worker configures its Kubernetes client as it would in a pod (service-account token
    // file), pointed at the simulator instead of the in-cluster service.
    Map<String, String> workerEnv = new LinkedHashMap<>();
    workerEnv.put("GSHARE_CLUSTER_ID", SIM_CLUSTER_ID);
    workerEnv.put("GSHARE_TEMPORAL_ADDRESS", temporalAddress);
    workerEnv.put("KUBERNETES_MASTER", cluster.url());
    workerEnv.put("KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN", serviceAccountToken.toString());
    workerEnv.put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
    workerEnv.put("KUBERNETES_NAMESPACE", "gshare-system");
    workerEnv.put("GSHARE_CONTROL_PLANE_URL", apiUrl());
    workerEnv.put("GSHARE_TOKEN_FILE", workerToken.toString());
    workerEnv.put("GSHARE_INVENTORY_INTERVAL", "5");
    worker = startWorker(workerEnv);
    writeStateFile(keyDir);
  }

  /**
   * Tells tools started later (hack/bootstrap-superadmin.sh) where this runtime's database and keys
   * are: {@code .gshare-dev/runtime.env} in the working directory, removed on stop.
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
        "GSHARE_SIM_KUBECONFIG=" + kubeconfig,
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
      if (Instant.now().isAfter(deadline) || !api.isAlive()) {
        throw new IllegalStateException("the api did not write " + file + " within " + timeout.toSeconds() + "s");
      }
      sleep(Duration.ofMillis(200));
    }
  }

  /** A super admin's API token, for the banner and for tests. */
  public String adminToken() {
    return adminToken;
  }

  private ChildProcess startWorker(Map<String, String> env) {
    ChildProcess process = ChildProcess.startJar("cluster-worker", options.workerJar(),
        List.of("-Xmx384m", "-XX:TieredStopAtLevel=1"), List.of(), env, options.logDir());
    started.push(process);
    return process;
  }

  private void awaitApi(Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline)) {
      if (!api.isAlive()) {
        throw new IllegalStateException("the api exited with code " + api.process().exitValue()
            + " during start" + (options.logDir() == null ? "" : "; see " + options.logDir().resolve("api.log")));
      }
      try {
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(apiUrl() + "/healthz"))
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
    throw new IllegalStateException("the api did not answer /healthz within " + timeout.toSeconds() + "s");
  }

  /**
   * Runs the connection test of the simulated cluster until its worker answers, proving the round
   * trip api → Temporal → cluster-worker → apiserver; returns the test's answer.
   */
  public JsonNode awaitClusterConnected(Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    JsonNode last = null;
    while (Instant.now().isBefore(deadline)) {
      try {
        HttpResponse<String> response = http.send(
            HttpRequest.newBuilder(URI.create(apiUrl() + "/api/v1/clusters/" + SIM_CLUSTER_ID + "/connection-test"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + adminToken)
                .timeout(Duration.ofSeconds(120))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
            HttpResponse.BodyHandlers.ofString());
        last = json.readTree(response.body());
        if (response.statusCode() == 200 && "connected".equals(last.path("status").asText())) {
          return last;
        }
      } catch (IOException e) {
        log.debug("connection test not answered yet: {}", e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      sleep(Duration.ofSeconds(1));
    }
    throw new IllegalStateException("the simulated cluster did not connect within " + timeout.toSeconds()
        + "s; last answer: " + last);
  }

  public String apiUrl() {
    return "http://127.0.0.1:" + options.httpPort();
  }

  public String temporalAddress() {
    return temporalAddress;
  }

  public String dbUrl() {
    return dbUrl;
  }

  public Path kubeconfig() {
    return kubeconfig;
  }

  public Path dataDir() {
    return dataDir;
  }

  public SimulatedCluster cluster() {
    return cluster;
  }

  /** The first child process that is no longer running, or null. */
  ChildProcess deadChild() {
    return Stream.of(api, worker).filter(p -> p != null && !p.isAlive()).findFirst().orElse(null);
  }

  long workerPid() {
    return worker.pid();
  }

  long apiPid() {
    return api.pid();
  }

  @Override
  public void close() {
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
