package io.gshare.api.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.activities.control.WorkerDeployer;
import io.gshare.api.security.TokenKind;
import io.gshare.api.security.Tokens;
import io.gshare.api.user.UserService;
import io.gshare.localdeployer.LocalProcessWorkerDeployer;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.KubeCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Deque;
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
  private final HttpClient http = HttpClient.newHttpClient();

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

  private static synchronized String jdbcUrl() {
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
    registry.add("gshare.cluster-worker.local.jar", () -> Path.of("..", "cluster-worker", "target", "gshare-cluster-worker.jar")
        .toAbsolutePath().normalize().toString());
    registry.add("gshare.cluster-worker.local.state-dir", () -> Path.of("target", "local-workers").toAbsolutePath().toString());
    registry.add("gshare.cluster-worker.local.log-dir", () -> Path.of("target", "local-worker-logs").toAbsolutePath().toString());
    registry.add("gshare.cluster-worker.inventory-interval-seconds", () -> "2");
    registry.add("gshare.cluster-worker.volume-sync-interval-seconds", () -> "3");
    registry.add("gshare.cluster-worker.attach-wait", () -> "40s");
    registry.add("gshare.node.stale-after", () -> "10s");
    registry.add("gshare.node.sweep-interval", () -> "1s");
    // A token rotation confirms within a few of the 2 s inventory intervals (TokenRotationIT).
    registry.add("gshare.tokens.confirm-wait", () -> "40s");
    registry.add("gshare.tokens.confirm-poll", () -> "1s");
    // The idle reaper sweeps every 5 s, so a 1-minute idle timeout is decided within seconds (IdleReaperIT).
    registry.add("gshare.idle.interval", () -> "5s");
    // Admin alerts go to a real receiver in this JVM, sent and retried within a second (AlertsIT).
    registry.add("gshare.alerts.webhook-url", AlertReceiver::url);
    registry.add("gshare.alerts.delivery-interval", () -> "300ms");
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

  protected HttpResponse<String> get(String path, String token) {
    return send("GET", path, null, token);
  }

  protected HttpResponse<String> post(String path, String body, String token) {
    return send("POST", path, body, token);
  }

  /** A GET on the management server (health, metrics), which takes no token. */
  protected HttpResponse<String> getManagement(String path) {
    return send(managementPort, "GET", path, null, null);
  }

  protected HttpResponse<String> send(String method, String path, String body, String token) {
    return send(port, method, path, body, token);
  }

  private HttpResponse<String> send(int port, String method, String path, String body, String token) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
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
    KubeCluster sim = startCluster(new SimSeed("v1.37.2", List.of(
        new SimSeed.NodeSpec(hostname, "exclusive", new SimSeed.GpuSpec(model, gpus, memoryMib, null),
            Map.of())), null), prefix);
    String kubeconfig = Files.readString(sim.writeKubeconfig(Files.createTempFile(prefix, ".kubeconfig")));
    ObjectMapper json = new ObjectMapper();
    HttpResponse<String> registered = post("/api/v1/clusters", json.writeValueAsString(Map.of(
        "name", NewTestIds.next(prefix).replace('_', '-'), "kubeconfig", kubeconfig, "session_domain",
        sessionDomain)), adminToken());
    JsonNode accepted = json.readTree(registered.body());
    String clusterId = accepted.at("/cluster/id").asText();
    String operation = accepted.at("/operation/id").asText();
    Awaitility.await().atMost(Duration.ofSeconds(180)).until(() -> "completed".equals(
        json.readTree(get("/api/v1/operations/" + operation, adminToken()).body()).path("status").asText()));
    return new AttachedSimulator(sim, clusterId);
  }

  /** A running session a test started, its owner's token, and the card it holds. */
  public record RunningSession(String id, String ownerToken, String gpuUuid) {}

  /**
   * Starts a session of one whole card of {@code model} as a new user with 100 credits (an exclusive offering and an
   * image made for it) and waits until it runs.
   */
  protected RunningSession startSession(String model) throws IOException {
    ObjectMapper json = new ObjectMapper();
    String admin = adminToken();
    String offering = json.readTree(post("/api/v1/offerings", "{\"name\":\"" + NewTestIds.next("off")
        + "\",\"gpu_model\":\"" + model + "\",\"mode\":\"exclusive\",\"gpu_count\":1,\"price_per_hour\":1}", admin)
        .body()).get("id").asText();
    String image = json.readTree(post("/api/v1/images", "{\"name\":\"" + NewTestIds.next("img")
        + "\",\"reference\":\"registry.example.com/gshare/jupyter:2026.11\"}", admin).body()).get("id").asText();
    String ownerId = newUser("user");
    HttpResponse<String> granted = post("/api/v1/credits/grants", "{\"user_id\":\"" + ownerId + "\",\"amount\":100}", admin);
    if (granted.statusCode() / 100 != 2) {
      throw new IllegalStateException("grant: " + granted.body());
    }
    String owner = tokenFor(ownerId);
    String session = json.readTree(post("/api/v1/sessions", "{\"offering_id\":\"" + offering + "\",\"image_id\":\""
        + image + "\"}", owner).body()).at("/session/id").asText();
    Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> "running".equals(
        json.readTree(get("/api/v1/sessions/" + session, owner).body()).at("/session/state").asText()));
    String card = json.readTree(get("/api/v1/sessions/" + session, owner).body()).path("gpus").get(0).path("uuid").asText();
    return new RunningSession(session, owner, card);
  }
}
