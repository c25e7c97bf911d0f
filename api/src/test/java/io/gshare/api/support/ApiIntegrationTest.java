package io.gshare.api.support;

import io.gshare.activities.control.WorkerDeployer;
import io.gshare.api.security.TokenKind;
import io.gshare.api.security.Tokens;
import io.gshare.api.user.UserService;
import io.gshare.client.ApiProblemException;
import io.gshare.client.ApiResponse;
import io.gshare.client.GshareClient;
import io.gshare.client.catalogue.Catalogue;
import io.gshare.client.cluster.Cluster;
import io.gshare.client.credit.Credits;
import io.gshare.client.session.NewSession;
import io.gshare.localdeployer.LocalProcessWorkerDeployer;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.KubeCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * Base of api integration tests: the whole Spring application on a random port, against a real
 * PostgreSQL, the Temporal CLI's dev server (a real Temporal server), and a simulated GPU cluster whose
 * cluster-worker activities poll {@code gshare-cluster-clu_sim}. Everything is shared per JVM.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureObservability(tracing = false)
// Simulated clusters listen on 127.0.0.1; a subclass may set it back to false (its properties win).
// The management server (health, metrics) on a random port of its own, as in production on 9090.
@TestPropertySource(properties = {"gshare.dev.allow-loopback-kubeconfig=true",
    "management.server.port=0"})
public abstract class ApiIntegrationTest {

  public static final String SIM_CLUSTER_ID = "clu_sim";

  private static KubeCluster simulatedCluster;
  private static InProcessClusterWorker clusterWorker;
  /** The clusters this test class started ({@link #startCluster}), closed after it. */
  private static final Deque<KubeCluster> classClusters = new ConcurrentLinkedDeque<>();
  /** The context's deployer and database, for the class's end, which runs where no bean is injected. */
  private static volatile WorkerDeployer classDeployer;
  private static volatile JdbcClient classJdbc;
  private static String jdbcUrl;
  private static Path keyDir;

  @LocalServerPort protected int port;
  @LocalManagementPort protected int managementPort;
  @Autowired protected JdbcClient jdbc;
  @Autowired protected UserService userService;
  @Autowired protected Tokens tokens;
  @Autowired private WorkerDeployer workerDeployer;
  /** The public API's client on this test's server (and one on the management port), made on first use. */
  private GshareClient api;
  private GshareClient management;

  /** The GPU cluster (a real Kubernetes with the dev seed's KWOK nodes) whose worker activities this JVM hosts. */
  protected static synchronized KubeCluster simulatedCluster() {
    if (simulatedCluster == null) {
      simulatedCluster = KubeCluster.start(SimSeed.defaultSeed(), KubeCluster.Options.defaults());
      clusterWorker = new InProcessClusterWorker(TemporalDevServerSupport.address(), SIM_CLUSTER_ID, simulatedCluster);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        clusterWorker.close();
        simulatedCluster.close();
      }));
    }
    return simulatedCluster;
  }

  protected static synchronized String jdbcUrl() {
    if (jdbcUrl == null) {
      jdbcUrl = EmbeddedPostgresSupport.newDatabase();
    }
    return jdbcUrl;
  }

  protected static synchronized Path keyDir() {
    if (keyDir == null) {
      try {
        keyDir = Files.createTempDirectory("gshare-test-keys");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return keyDir;
  }

  @DynamicPropertySource
  static void infrastructure(DynamicPropertyRegistry registry) {
    simulatedCluster();
    registry.add("spring.datasource.url", ApiIntegrationTest::jdbcUrl);
    registry.add("spring.datasource.username", () -> "postgres");
    registry.add("spring.datasource.password", () -> "");
    registry.add("gshare.temporal.address", TemporalDevServerSupport::address);
    registry.add("gshare.temporal.ui-url", TemporalDevServerSupport::uiUrl);
    registry.add("gshare.security.key-dir", () -> keyDir().toString());
    // Attach tests run real cluster-worker processes from the jar the reactor built before this module.
    registry.add("gshare.cluster-worker.deploy", () -> "local-process");
    // ...which reach Temporal only through the api's gateway, with their operator tokens (as in the dev runtime).
    registry.add("gshare.temporal-gateway.enabled", () -> "true");
    registry.add("gshare.temporal-gateway.port", () -> "0");
    registry.add("gshare.temporal-gateway.bind-address", () -> "127.0.0.1");
    registry.add("gshare.cluster-worker.local.jar", () -> Path.of("..", "cluster-worker", "target", "gshare-cluster-worker.jar")
        .toAbsolutePath().normalize().toString());
    registry.add("gshare.cluster-worker.local.state-dir", () -> Path.of("target", "local-workers").toAbsolutePath().toString());
    registry.add("gshare.cluster-worker.local.log-dir", () -> Path.of("target", "local-worker-logs").toAbsolutePath().toString());
    registry.add("gshare.cluster-worker.inventory-interval-seconds", () -> "2");
    registry.add("gshare.cluster-worker.volume-sync-interval-seconds", () -> "3");
    registry.add("gshare.cluster-worker.attach-wait", () -> "40s");
    registry.add("gshare.node.stale-after", () -> "10s");
    registry.add("gshare.node.sweep-interval", () -> "2s");
    // A token rotation confirms within a few of the 2 s inventory intervals (TokenRotationIT).
    registry.add("gshare.tokens.confirm-wait", () -> "40s");
    registry.add("gshare.tokens.confirm-poll", () -> "1s");
    // The idle reaper sweeps every 5 s, so a 1-minute idle timeout is decided within seconds (IdleReaperIT).
    registry.add("gshare.idle.interval", () -> "5s");
    // Admin alerts go to a real receiver in this JVM, sent and retried within a second or two (AlertsIT): the
    // Schedule alert-delivery runs every second, the shortest interval a Temporal Schedule takes.
    registry.add("gshare.alerts.webhook-url", AlertReceiver::url);
    registry.add("gshare.alerts.delivery-interval", () -> "1s");
    registry.add("gshare.alerts.retry-initial", () -> "200ms");
    registry.add("gshare.alerts.retry-max", () -> "1s");
    // The simulator runs any image: lossless pauses build their checkpoint images with this one.
    registry.add("gshare.sessions.checkpoint-builder-image", () -> "registry.example.com/tools/buildah:1");
  }

  /** The simulated cluster whose worker activities this JVM hosts, registered as attach would leave it. */
  @BeforeEach
  void registerSimulatedCluster() {
    classDeployer = workerDeployer;
    classJdbc = jdbc;
    jdbc.sql("""
        insert into clusters (id, name, status, session_domain, simulated)
        values (:id, 'sim', 'connected', 'sessions.sim.example.com', true) on conflict (id) do nothing
        """).param("id", SIM_CLUSTER_ID).update();
  }

  /**
   * Starts a real Kubernetes for this test class, named {@code prefix} and a number, closed after the class with the
   * rest of what it started ({@link #stopWhatTheClassStarted}).
   */
  protected static KubeCluster startCluster(SimSeed seed, String prefix) {
    KubeCluster cluster = KubeCluster.start(seed, KubeCluster.Options.defaults().withName(NewTestIds.next(prefix)));
    classClusters.push(cluster);
    return cluster;
  }

  /**
   * After each test class: the cluster-workers (and usage agents) that attach started as local processes of this JVM
   * for the class's clusters stop, and the clusters the class started close. Left running, every cluster of every
   * earlier class kept its control plane, its worker polling Temporal and its reports to the api going for the rest
   * of the run: a load that grew with each class and slowed every later one.
   */
  @AfterAll
  static void stopWhatTheClassStarted() {
    if (classDeployer instanceof LocalProcessWorkerDeployer local && classJdbc != null) {
      classJdbc.sql("select id from clusters where id <> :shared").param("shared", SIM_CLUSTER_ID).query(String.class)
          .list().forEach(clusterId -> local.remove(clusterId, null));
    }
    while (!classClusters.isEmpty()) {
      classClusters.pop().close();
    }
  }

  /** A super admin's token (the same super admin every time, as bootstrap guarantees). */
  protected String adminToken() {
    return userService.bootstrapSuperAdmin("superadmin@example.com").token();
  }

  /** Creates a user with {@code role} directly in Postgres and returns its id. */
  protected String newUser(String role) {
    String id = NewTestIds.next("usr");
    jdbc.sql("insert into users (id, email, role) values (:id, :email, :role)")
        .param("id", id).param("email", id + "@example.com").param("role", role).update();
    return id;
  }

  protected String tokenFor(String userId) {
    return userService.issue(userId, "test", Duration.ofHours(1)).token();
  }

  protected String operatorToken(String clusterId) {
    return tokens.sign(TokenKind.INTERNAL, "operator:" + clusterId, null, Duration.ofHours(1));
  }

  /**
   * The one client of the public API ({@code gshare-client}) on this test's server, calling with {@code token} (null:
   * anonymously). Calls wait up to two minutes for an answer, as some commands answer only when they are done.
   */
  protected GshareClient api(String token) {
    synchronized (this) {
      if (api == null) {
        api = new GshareClient(URI.create("http://127.0.0.1:" + port), null).timeout(Duration.ofMinutes(2));
      }
    }
    return api.as(token);
  }

  protected ApiResponse get(String path, String token) {
    return send("GET", path, null, token);
  }

  protected ApiResponse post(String path, String body, String token) {
    return send("POST", path, body, token);
  }

  /** A GET on the management server (health, metrics), which takes no token. */
  protected ApiResponse getManagement(String path) {
    synchronized (this) {
      if (management == null) {
        management = new GshareClient(URI.create("http://127.0.0.1:" + managementPort), null)
            .timeout(Duration.ofMinutes(2));
      }
    }
    return management.exchange("GET", path, null, Map.of("Accept", "*/*"));
  }

  /**
   * {@code method path} with {@code body} (JSON text, or null) as the holder of {@code token}, through the client's
   * raw door: whatever the server answered, error statuses included. The call states no media-type preference
   * ({@code Accept: *}{@code /*}), so each answer is the server's own choice, as for any HTTP client.
   */
  protected ApiResponse send(String method, String path, String body, String token) {
    return send(method, path, body, token, Map.of());
  }

  /** {@link #send(String, String, String, String)} with {@code headers} (an {@code Accept}, a cookie, a key). */
  protected ApiResponse send(String method, String path, String body, String token, Map<String, String> headers) {
    Map<String, String> all = new LinkedHashMap<>();
    if (headers.keySet().stream().noneMatch("Accept"::equalsIgnoreCase)) {
      all.put("Accept", "*/*");
    }
    all.putAll(headers);
    return api(token).exchange(method, path, body, all);
  }

  /**
   * A GPU cluster a test started (a real Kubernetes with KWOK nodes and simulated GPUs) and attached through the API
   * (its own worker process), and its id.
   */
  public record AttachedSimulator(KubeCluster sim, String clusterId) {}

  /**
   * Starts a real Kubernetes of one KWOK node {@code hostname} with {@code gpus} cards of {@code model} ({@code memoryMib}
   * each, exclusive), registers it through the API with a session domain of this test, and waits until its attach
   * completes. The caller closes the cluster.
   */
  protected AttachedSimulator attachSimulator(String prefix, String hostname, String model, int gpus, long memoryMib)
      throws IOException {
    return attachSimulator(prefix, hostname, model, gpus, memoryMib,
        "gshare." + NewTestIds.next("lab").replace('_', '-') + ".example.com");
  }

  /** {@link #attachSimulator(String, String, String, int, long)} with the cluster's session domain given. */
  protected AttachedSimulator attachSimulator(String prefix, String hostname, String model, int gpus, long memoryMib,
      String sessionDomain) throws IOException {
    return attachSimulator(prefix, new SimSeed("v1.37.2", List.of(
        new SimSeed.NodeSpec(hostname, "exclusive", new SimSeed.GpuSpec(model, gpus, memoryMib, null),
            Map.of())), null), sessionDomain);
  }

  /** A cluster of the nodes {@code seed} names, started and attached as above. */
  protected AttachedSimulator attachSimulator(String prefix, SimSeed seed, String sessionDomain) throws IOException {
    KubeCluster sim = startCluster(seed, prefix);
    String kubeconfig = Files.readString(sim.writeKubeconfig(Files.createTempFile(prefix, ".kubeconfig")));
    GshareClient admin = api(adminToken());
    Cluster.Accepted accepted = admin.clusters().register(new Cluster.NewCluster(
        NewTestIds.next(prefix).replace('_', '-'), kubeconfig, sessionDomain, null, null, null));
    String operation = accepted.operation().id();
    Awaitility.await().atMost(Duration.ofSeconds(180)).ignoreExceptionsInstanceOf(ApiProblemException.class)
        .until(() -> "completed".equals(admin.operations().get(operation).status()));
    return new AttachedSimulator(sim, accepted.cluster().id());
  }

  /** A running session a test started, its owner's token, and the card it holds. */
  public record RunningSession(String id, String ownerToken, String gpuUuid) {}

  /**
   * Starts a session of one whole card of {@code model} as a new user with 100 credits (an exclusive offering and an
   * image made for it) and waits until it runs.
   */
  protected RunningSession startSession(String model) throws IOException {
    GshareClient admin = api(adminToken());
    String offering = admin.catalogue().createOffering(new Catalogue.NewOffering(NewTestIds.next("off"), model,
        "exclusive", 1, null, null, BigDecimal.ONE, null)).id();
    String image = admin.catalogue().createImage(new Catalogue.NewImage(NewTestIds.next("img"),
        "registry.example.com/gshare/jupyter:2026.11", null, null, null, null)).id();
    String ownerId = newUser("user");
    admin.credits().grant(new Credits.Grant(ownerId, BigDecimal.valueOf(100), null, null));
    String owner = tokenFor(ownerId);
    GshareClient asOwner = api(owner);
    String session = asOwner.sessions().create(new NewSession(offering, image, null, null, null)).session().id();
    Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptionsInstanceOf(ApiProblemException.class)
        .until(() -> "running".equals(asOwner.sessions().get(session).session().state()));
    String card = asOwner.sessions().get(session).gpus().get(0).uuid();
    return new RunningSession(session, owner, card);
  }
}
