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
 * The README's first command, end to end: real PostgreSQL, the Temporal CLI's dev server with its
 * Web UI, the simulated cluster, and the api and cluster-worker as the processes their jars start.
 * Checks the round trip through the real cluster-worker, kubectl against the simulator, the
 * README's temporal commands, a restart that keeps the data, the running workflows and the
 * Schedules, and that stopping leaves nothing running.
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
    String sessionId;
    String sessionRunId;
    java.time.Instant scheduleCreatedAt;
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

      // The Web UI serves, and the README's temporal commands find the attach and the metering Schedule.
      HttpResponse<String> ui = http.send(HttpRequest.newBuilder(URI.create(runtime.temporalUiUrl())).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(ui.statusCode()).isEqualTo(200);
      String first = runtime.clusters().get(0).id();
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
          temporal(runtime, "workflow", "list", "--query", "GshareClusterId='" + first + "'"))
          .contains("cluster-attach-" + first).contains("ClusterAttach"));
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThat(temporal(runtime, "schedule", "list")).contains("metering-sweep"));

      // A session left running across the restart below.
      sessionId = startSession(runtime);
      JsonNode running = awaitSession(runtime, sessionId, "running");
      // Either cluster may be chosen (both have the model); the URL is on the chosen one's domain.
      String chosen = running.at("/session/cluster_id").asText();
      DevRuntime.AttachedCluster placed = runtime.clusters().stream().filter(c -> c.id().equals(chosen)).findFirst()
          .orElseThrow(() -> new AssertionError("session on an unknown cluster: " + running));
      assertThat(running.at("/session/url").asText()).startsWith("https://" + placed.sessionDomain() + "/s/" + sessionId);
      try (Temporal t = new Temporal(runtime.temporalAddress())) {
        sessionRunId = t.workflows().newUntypedWorkflowStub("session-" + sessionId).describe().getExecution().getRunId();
        scheduleCreatedAt = t.schedules().getHandle("metering-sweep").describe().getInfo().getCreatedAt();
      }
    }
    for (long pid : workerPids) {
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isIn(Optional.empty(), Optional.of(false));
    }
    assertThat(ProcessHandle.of(apiPid).map(ProcessHandle::isAlive)).isIn(Optional.empty(), Optional.of(false));
    assertThat(portIsFree(options.httpPort())).isTrue();
    assertThat(Path.of(".gshare-dev", "runtime.env")).doesNotExist();

    // Same data directory: the clusters are known, attached again, and keep their history; Temporal
    // kept the running session's execution (the same run: nothing had to be recovered) and the Schedule.
    try (DevRuntime again = DevRuntime.start(options(dataDir, options))) {
      for (DevRuntime.AttachedCluster cluster : again.clusters()) {
        JsonNode view = json.readTree(get(again, "/api/v1/clusters/" + cluster.id(), again.adminToken()).body());
        assertThat(view.path("created_at").asText()).isEqualTo(createdAt.get(cluster.name()));
        assertThat(view.path("status").asText()).isEqualTo("connected");
      }
      try (Temporal t = new Temporal(again.temporalAddress())) {
        var described = t.workflows().newUntypedWorkflowStub("session-" + sessionId).describe();
        assertThat(described.getExecution().getRunId()).isEqualTo(sessionRunId);
        assertThat(described.getStatus()).isEqualTo(io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
        assertThat(t.schedules().getHandle("metering-sweep").describe().getInfo().getCreatedAt()).isEqualTo(scheduleCreatedAt);
        // The first attach run is still in visibility beside the second.
        String first = again.clusters().get(0).id();
        assertThat(t.workflows().listExecutions("WorkflowId = 'cluster-attach-" + first + "'").count()).isEqualTo(2);
      }
      // The workflow answers commands after the restart: the session ends cleanly.
      HttpRequest end = HttpRequest.newBuilder(URI.create(again.apiUrl() + "/api/v1/sessions/" + sessionId))
          .header("Authorization", "Bearer " + again.adminToken()).DELETE().build();
      HttpResponse<String> ended = http.send(end, HttpResponse.BodyHandlers.ofString());
      assertThat(ended.statusCode()).as(ended.body()).isEqualTo(200);
      assertThat(json.readTree(ended.body()).at("/session/state").asText()).isEqualTo("terminated");
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

  /** Temporal clients on the dev runtime's server. */
  private record Temporal(io.temporal.serviceclient.WorkflowServiceStubs stubs) implements AutoCloseable {
    Temporal(String address) {
      this(io.temporal.serviceclient.WorkflowServiceStubs.newServiceStubs(
          io.temporal.serviceclient.WorkflowServiceStubsOptions.newBuilder().setTarget(address).build()));
    }

    io.temporal.client.WorkflowClient workflows() {
      return io.temporal.client.WorkflowClient.newInstance(stubs);
    }

    io.temporal.client.schedules.ScheduleClient schedules() {
      return io.temporal.client.schedules.ScheduleClient.newInstance(stubs);
    }

    @Override
    public void close() {
      stubs.shutdown();
    }
  }

  /** An offering, an image and credits for the runtime's super admin, then a session of one H100. */
  private String startSession(DevRuntime runtime) throws Exception {
    String admin = runtime.adminToken();
    String offering = send(runtime, "POST", "/api/v1/offerings", """
        {"name":"h100-restart","gpu_model":"NVIDIA H100 80GB HBM3","mode":"exclusive","gpu_count":1,"price_per_hour":1}
        """, admin).path("id").asText();
    String image = send(runtime, "POST", "/api/v1/images",
        "{\"name\":\"jupyter-restart\",\"reference\":\"registry.example.com/gshare/jupyter:2026.11\"}", admin).path("id").asText();
    String me = send(runtime, "GET", "/api/v1/users/me", null, admin).path("id").asText();
    send(runtime, "POST", "/api/v1/credits/grants", "{\"user_id\":\"" + me + "\",\"amount\":100,\"idempotency_key\":\"restart-it\"}", admin);
    return send(runtime, "POST", "/api/v1/sessions",
        "{\"offering_id\":\"" + offering + "\",\"image_id\":\"" + image + "\"}", admin).at("/session/id").asText();
  }

  private JsonNode awaitSession(DevRuntime runtime, String id, String state) {
    JsonNode[] last = new JsonNode[1];
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
      last[0] = send(runtime, "GET", "/api/v1/sessions/" + id, null, runtime.adminToken());
      assertThat(last[0].at("/session/state").asText()).as(last[0].toString()).isEqualTo(state);
    });
    return last[0];
  }

  private JsonNode send(DevRuntime runtime, String method, String path, String body, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(runtime.apiUrl() + path))
        .header("Authorization", "Bearer " + token)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode() / 100).as(method + " " + path + ": " + response.body()).isEqualTo(2);
    return json.readTree(response.body());
  }

  /** The README's temporal commands, with the binary make tools installs. */
  private static String temporal(DevRuntime runtime, String... args) throws Exception {
    Path cli = Path.of(System.getProperty("gshare.dev.temporal-cli", ".tools/bin/temporal"));
    List<String> command = new java.util.ArrayList<>(List.of(cli.toString()));
    command.addAll(List.of(args));
    command.addAll(List.of("--address", runtime.temporalAddress()));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isZero();
    return output;
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
        "--management-port", String.valueOf(freePort()),
        "--temporal-port", String.valueOf(freePort()),
        "--temporal-ui-port", String.valueOf(freePort()),
        "--temporal-cli", System.getProperty("gshare.dev.temporal-cli"),
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
