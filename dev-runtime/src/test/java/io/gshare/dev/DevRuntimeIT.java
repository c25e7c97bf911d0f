package io.gshare.dev;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first command, end to end: real PostgreSQL, the embedded Temporal server, the
 * simulated cluster, and the api and cluster-worker as the processes their jars start. Checks the
 * round trip through the real cluster-worker, kubectl against the simulator, a restart that keeps
 * the data, and that stopping leaves nothing running.
 */
class DevRuntimeIT {

  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  @Test
  void startsEverythingAttachesTwoClustersAndKeepsDataAcrossARestart(@TempDir Path dataDir) throws Exception {
    DevRuntimeOptions options = options(dataDir);
    Map<String, String> createdAt = new java.util.HashMap<>();
    List<Long> workerPids = new java.util.ArrayList<>();
    long apiPid;
    try (DevRuntime runtime = DevRuntime.start(options)) {
      assertThat(get(runtime, "/healthz", null).statusCode()).isEqualTo(200);
      String admin = runtime.adminToken();
      assertThat(get(runtime, "/api/v1/system", null).statusCode()).isEqualTo(401);
      assertThat(runtime.clusters()).hasSize(2);
      assertThat(runtime.clusters()).extracting(DevRuntime.AttachedCluster::id).doesNotHaveDuplicates();

      JsonNode test = runtime.connectionTest(runtime.clusters().get(0).id());
      assertThat(test.path("status").asText()).isEqualTo("connected");
      assertThat(test.path("simulated").asBoolean()).isTrue();
      assertThat(test.path("gpu_count").asInt()).isEqualTo(12);
      assertThat(test.path("checks").path("runtime_class_nvidia").asBoolean()).isTrue();

      JsonNode system = json.readTree(get(runtime, "/api/v1/system", admin).body());
      assertThat(system.at("/database/schema_version").asText()).isEqualTo(latestMigration());
      assertThat(system.at("/temporal/reachable").asBoolean()).isTrue();
      assertThat(system.at("/task_queues/0/polled").asBoolean()).isTrue();
      for (DevRuntime.AttachedCluster cluster : runtime.clusters()) {
        JsonNode queue = null;
        for (JsonNode q : system.get("task_queues")) {
          if (q.path("name").asText().equals("gshare-cluster-" + cluster.id())) {
            queue = q;
          }
        }
        assertThat(queue).as(cluster.id()).isNotNull();
        assertThat(queue.path("polled").asBoolean()).isTrue();
        // The poller is a cluster-worker process the attach workflow started, not the api itself.
        String identity = queue.at("/pollers/0/identity").asText();
        assertThat(identity).endsWith("/" + cluster.id());
        long pid = Long.parseLong(identity.substring(0, identity.indexOf('@')));
        assertThat(pid).isNotEqualTo(runtime.apiPid());
        workerPids.add(pid);

        // Each worker reports its inventory with the operator token the attach workflow installed.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
          JsonNode nodes = json.readTree(get(runtime, "/api/v1/nodes?cluster_id=" + cluster.id(), admin).body()).get("items");
          assertThat(nodes).hasSize(3);
          int gpus = 0;
          for (JsonNode node : nodes) {
            assertThat(node.get("liveness").asText()).isEqualTo("ready");
            gpus += node.get("gpus").size();
          }
          assertThat(gpus).isEqualTo(12);
        });
        JsonNode view = json.readTree(get(runtime, "/api/v1/clusters/" + cluster.id(), admin).body());
        assertThat(view.path("session_domain").asText()).isEqualTo(cluster.sessionDomain());
        createdAt.put(cluster.name(), view.path("created_at").asText());
        assertThat(kubectl(cluster.kubeconfig(), "get", "nodes"))
            .contains("sim-h100-0", "sim-a100-0", "sim-cpu-0").contains("Ready");
      }
      assertThat(workerPids).doesNotHaveDuplicates();
      assertThat(get(runtime, "/.well-known/gshare-internal-jwks.json", null).body()).startsWith("{\"keys\":[{\"alg\":\"RS256\"");
      assertThat(Path.of(".gshare-dev", "runtime.env")).content().contains("GSHARE_DB_URL=" + runtime.dbUrl());
      apiPid = runtime.apiPid();
    }
    for (long pid : workerPids) {
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isIn(Optional.empty(), Optional.of(false));
    }
    assertThat(ProcessHandle.of(apiPid).map(ProcessHandle::isAlive)).isIn(Optional.empty(), Optional.of(false));
    assertThat(portIsFree(options.httpPort())).isTrue();
    assertThat(Path.of(".gshare-dev", "runtime.env")).doesNotExist();

    // Same data directory: the clusters are known, attached again, and keep their history.
    try (DevRuntime again = DevRuntime.start(options(dataDir, options))) {
      for (DevRuntime.AttachedCluster cluster : again.clusters()) {
        JsonNode view = json.readTree(get(again, "/api/v1/clusters/" + cluster.id(), again.adminToken()).body());
        assertThat(view.path("created_at").asText()).isEqualTo(createdAt.get(cluster.name()));
        assertThat(view.path("status").asText()).isEqualTo("connected");
      }
    }
  }

  @Test
  void badOptionsAreRefusedWithTheProblemNamed() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> DevRuntimeOptions.parse(
            new String[] {"--http-port", "eighty", "--bogus", "x", "--temporal-address", "nope"}, Map.of()))
        .hasMessageContaining("--http-port 'eighty' is not a number")
        .hasMessageContaining("unknown option --bogus")
        .hasMessageContaining("--temporal-address 'nope' is not host:port");
  }

  /** The highest V<n>__ migration the api ships. */
  private static String latestMigration() throws IOException {
    try (var files = java.nio.file.Files.list(Path.of("..", "api", "src", "main", "resources", "db", "migration"))) {
      return String.valueOf(files.map(f -> f.getFileName().toString())
          .filter(n -> n.matches("V\\d+__.*\\.sql"))
          .mapToInt(n -> Integer.parseInt(n.substring(1, n.indexOf("__"))))
          .max().orElseThrow());
    }
  }

  private DevRuntimeOptions options(Path dataDir) {
    return options(dataDir, null);
  }

  /** Fresh free ports, except the simulators' when {@code previous} is given: stored kubeconfigs name them. */
  private DevRuntimeOptions options(Path dataDir, DevRuntimeOptions previous) {
    int simulatorPort = previous != null ? previous.simulatorPort() : freePortPair();
    return DevRuntimeOptions.parse(new String[] {
        "--data-dir", dataDir.toString(),
        "--clusters", "2",
        "--http-port", String.valueOf(freePort()),
        "--temporal-port", String.valueOf(freePort()),
        "--postgres-port", String.valueOf(freePort()),
        "--simulator-port", String.valueOf(simulatorPort),
        "--api-jar", System.getProperty("gshare.dev.api-jar"),
        "--worker-jar", System.getProperty("gshare.dev.worker-jar"),
        "--log-dir", Path.of("target", "dev-runtime-it-logs").toAbsolutePath().toString()}, Map.of());
  }

  private HttpResponse<String> get(DevRuntime runtime, String path, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(runtime.apiUrl() + path)).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String kubectl(Path kubeconfig, String... args) throws Exception {
    Path kubectl = Path.of(System.getProperty("gshare.dev.kubectl", ".tools/bin/kubectl"));
    assertThat(kubectl).as("kubectl (make tools installs it into .tools/bin)").isExecutable();
    List<String> command = new java.util.ArrayList<>(List.of(kubectl.toString(), "--kubeconfig", kubeconfig.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isZero();
    return output;
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A free port whose successor is free too (two simulators listen side by side). */
  private static int freePortPair() {
    for (int attempt = 0; attempt < 50; attempt++) {
      int port = freePort();
      if (port < 65535 && portIsFree(port + 1)) {
        return port;
      }
    }
    throw new IllegalStateException("no two adjacent free ports");
  }

  private static boolean portIsFree(int port) {
    try (ServerSocket socket = new ServerSocket(port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
