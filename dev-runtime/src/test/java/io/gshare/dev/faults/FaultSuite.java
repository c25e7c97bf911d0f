package io.gshare.dev.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.model.WorkerObjects;
import io.gshare.client.ApiCallException;
import io.gshare.client.ApiJson;
import io.gshare.client.ApiPaths;
import io.gshare.client.ApiResponse;
import io.gshare.client.GshareClient;
import io.gshare.client.credit.Credits;
import io.gshare.client.node.Node;
import io.gshare.client.session.NewSession;
import io.gshare.client.volume.StoragePool;
import io.gshare.client.volume.Volume;
import io.gshare.dev.DemoCatalogue;
import io.gshare.dev.DevRuntime;
import io.gshare.dev.TestRuntimes;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.kube.LabelKeys;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.math.BigDecimal;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

/**
 * The fault and bad-input suite: each scenario injects one failure a GPU platform meets into the dev runtime's real
 * parts (PostgreSQL, the Temporal dev server, the GPU cluster, the api and cluster-worker processes) and ends
 * by checking the four invariants ({@link Invariants}); a broken one fails the scenario with the rows that break
 * it. The fast scenarios run in {@code make test}; those tagged {@code slow-fault} under {@code make test-faults}.
 * The scenarios are split by where the fault strikes into {@link FaultSuiteClusterIT} and
 * {@link FaultSuiteControlPlaneIT}, each with a dev runtime of its own, so that the two run side by side in the
 * integration tests' two forks. Each prints its table of scenario, invariants held and time at its end and writes it
 * to {@code target/fault-suite-<class>.txt}.
 *
 * <p>The cluster is a real Kubernetes ({@code KubeCluster}: kube-apiserver, etcd, controller-manager, scheduler, KWOK
 * nodes with simulated GPUs) whose API the api and the worker reach through its {@code FaultProxy}: apiserver failures
 * are injected there (scenarios 6 and 7), the rest of the time every request is the real apiserver's to answer. The
 * suite's own checks go to the apiserver directly ({@link #kube()}), so they never meet a fault meant for gShare.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class FaultSuite {

  static final ObjectMapper JSON = new ObjectMapper();
  static final Duration SETTLE = Duration.ofSeconds(20);
  static final Duration VOLUME_GRACE = Duration.ofSeconds(30);

  DevRuntime runtime;
  Path dataDir;
  Invariants invariants;
  String admin;
  String demo;
  DemoCatalogue.Demo catalogue;
  /** The runtime's API as its super admin ({@link GshareClient#as} for another caller): setup, reads, {@link #send}. */
  GshareClient api;
  /** Only for what the API's client does not send: a body streamed without a length (scenario 18). */
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  final Map<String, String> table = Collections.synchronizedMap(new TreeMap<>());
  /** What gShare made of the current scenario's fault, for its row of the table. */
  String note;

  record Answer(int status, JsonNode body, String contentType, String retryAfter) {}

  @BeforeAll
  void start() throws Exception {
    // A kept data directory: the Temporal server keeps its state in a file, so scenario 5 can restart it.
    dataDir = Files.createTempDirectory("gshare-faults-");
    runtime = startRuntime("fault-suite-logs-" + getClass().getSimpleName(), dataDir);
    invariants = new Invariants(runtime, SETTLE);
    admin = runtime.adminToken();
    api = runtime.api().timeout(Duration.ofSeconds(30));
    catalogue = runtime.demo();
    demo = Files.readString(catalogue.tokenFile()).trim();
  }

  /** The class's dev runtime: one api, its cluster's API behind the fault proxy. */
  DevRuntime startRuntime(String logDir, Path dataDir) throws IOException {
    // A deleted volume's grace of seconds, not a day: scenario 17 races its end.
    // Volume syncs every 10 s, not 5 min: scenario 8 watches a deleted claim be recorded.
    return TestRuntimes.startWithFaultProxy(logDir, dataDir, "gshare.volumes.reclaim-grace=" + VOLUME_GRACE.toSeconds()
        + "s", "gshare.cluster-worker.volume-sync-interval-seconds=10");
  }

  @AfterAll
  void stop() throws Exception {
    int width = table.keySet().stream().mapToInt(String::length).max().orElse(8) + 3;
    StringBuilder out = new StringBuilder(String.format("%-" + width + "s%-40s %-8s%s%n", "SCENARIO", "INVARIANTS",
        "TIME", "WHAT GSHARE DID"));
    table.entrySet().stream().sorted(Comparator.comparing(e -> Integer.parseInt(e.getKey().split(" ")[0])))
        .forEach(e -> out.append(String.format("%-" + width + "s%s%n", e.getKey(), e.getValue())));
    System.out.println(out);
    Files.writeString(Path.of("target", "fault-suite-" + getClass().getSimpleName() + ".txt"), out.toString());
    if (runtime != null) {
      runtime.close();
    }
    if (dataDir != null) {
      try (var paths = Files.walk(dataDir)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * Ends a scenario: the four invariants must hold; the row goes into the table. Unless they already hold with
   * nothing counted as still moving ({@link Invariants#heldWithNothingMoving}), the first check waits until the
   * settle time has passed since the last fault, so what nothing repaired (a running session whose pod is gone) is
   * seen as settled, not as still moving.
   */
  void endScenario(TestInfo info, Instant started, Instant lastFault) throws Exception {
    Duration sinceFault = Duration.between(lastFault, Instant.now());
    if (sinceFault.compareTo(SETTLE) < 0 && !invariants.heldWithNothingMoving()) {
      Thread.sleep(SETTLE.minus(sinceFault).toMillis() + 1_000);
    }
    List<Invariants.Violation> violations = invariants.awaitHeld(Duration.ofSeconds(40));
    String time = Duration.between(started, Instant.now()).toSeconds() + " s";
    table.put(info.getDisplayName(), String.format("%-40s %-8s%s",
        violations.isEmpty() ? "all 4 held" : violations.size() + " violation(s)", time, note == null ? "" : note));
    note = null;
    assertThat(violations).as("invariants after " + info.getDisplayName()).isEmpty();
  }

  // ---------------------------------------------------------------------------------------------------------------

  /** An admin client of the suite's cluster that goes straight to its apiserver, past the fault proxy. */
  KubernetesClient kube() {
    return kube(runtime.clusters().get(0));
  }

  static KubernetesClient kube(DevRuntime.AttachedCluster cluster) {
    return cluster.kube().kubernetes().newClient();
  }

  /** The jti of the token in the cluster's worker Secret; null when the Secret is gone. */
  static String tokenSecretJti(DevRuntime.AttachedCluster cluster) throws Exception {
    try (KubernetesClient kube = kube(cluster)) {
      var secret = kube.secrets().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.TOKEN_SECRET).get();
      if (secret == null) {
        return null;
      }
      String token = secret.getData() != null && secret.getData().containsKey(WorkerObjects.TOKEN_KEY)
          ? new String(Base64.getDecoder().decode(secret.getData().get(WorkerObjects.TOKEN_KEY)),
              StandardCharsets.UTF_8)
          : secret.getStringData().get(WorkerObjects.TOKEN_KEY);
      return JSON.readTree(Base64.getUrlDecoder().decode(token.split("\\.")[1])).path("jti").asText();
    }
  }

  /** The phase the control plane records for the volume's claim on the suite's cluster. */
  String claimPhase(String volume) throws Exception {
    JsonNode claims = send("GET", ApiPaths.volume(volume), null, admin, Map.of()).body().path("claims");
    return claims.size() == 0 ? null : claims.get(0).path("phase").asText(null);
  }

  void flood(TestInfo info, Instant started, String operator, List<Long> userLatencies, ExecutorService others)
      throws Exception {
    AtomicBoolean flooding = new AtomicBoolean(true);
    Future<List<Integer>> userAnswers = others.submit(() -> {
      List<Integer> statuses = new ArrayList<>();
      while (flooding.get()) {
        long t0 = System.nanoTime();
        statuses.add(send("GET", ApiPaths.SESSIONS, null, demo, Map.of()).status());
        userLatencies.add((System.nanoTime() - t0) / 1_000_000);
        Thread.sleep(50);
      }
      return statuses;
    });
    List<Answer> reports;
    try {
      reports = parallel(3000, 32, i -> send("POST", "/internal/v1/sessions/status",
          "{\"sessions\":[],\"complete\":false}", operator, Map.of()));
    } finally {
      flooding.set(false);
    }
    List<Integer> served = userAnswers.get();
    Map<Integer, Long> reportStatuses = byStatus(reports);
    assertThat(reportStatuses.keySet()).as("report statuses " + reportStatuses).isSubsetOf(200, 204, 429)
        .contains(429);
    Answer refused = reports.stream().filter(a -> a.status() == 429).findFirst().orElseThrow();
    assertThat(refused.contentType()).startsWith("application/problem+json");
    assertThat(refused.body().path("code").asText()).isEqualTo("rate_limited");
    assertThat(refused.retryAfter()).isEqualTo("1");
    assertThat(served).as("a user's reads during the flood").isNotEmpty().containsOnly(200);

    // Creates: the default policy allows two sessions at once for the flood; a burst of 200 creates.
    JsonNode policy = api.catalogue().defaultPolicy();
    ObjectNode input = JSON.createObjectNode();
    for (String member : List.of("max_concurrent_sessions", "max_runtime_minutes", "max_runtime_action",
        "idle_timeout_minutes", "idle_timeout_minutes_fractional", "overflow", "placement", "min_balance_to_start",
        "volume_quota_gb", "volume_quota_count", "team_volume_quota_gb", "team_volume_quota_count")) {
      if (policy.hasNonNull(member)) {
        input.set(member, policy.get(member));
      }
    }
    Answer limited = send("PUT", ApiPaths.DEFAULT_POLICY, input.deepCopy().put("max_concurrent_sessions", 2)
        .toString(), admin, Map.of());
    assertThat(limited.status()).as(limited.body().toString()).isEqualTo(200);
    List<Answer> creates;
    List<Answer> otherUsers;
    try {
      AtomicInteger n = new AtomicInteger();
      Future<List<Answer>> otherUser = others.submit(() -> {
        List<Answer> answers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          answers.add(send("DELETE", ApiPaths.session("ses_missing" + i), null, admin, Map.of()));
        }
        return answers;
      });
      creates = parallel(200, 16, i -> requestSession("fault-20-" + n.incrementAndGet(), "fractional", demo));
      otherUsers = otherUser.get();
    } finally {
      Answer restored = send("PUT", ApiPaths.DEFAULT_POLICY, input.toString(), admin, Map.of());
      assertThat(restored.status()).as(restored.body().toString()).isEqualTo(200);
    }
    Map<Integer, Long> createStatuses = byStatus(creates);
    assertThat(createStatuses.keySet()).as("create statuses " + createStatuses).allMatch(s -> s == 202 || s == 409
        || s == 429);
    assertThat(creates).filteredOn(a -> a.status() >= 400).allSatisfy(a -> assertThat(a.contentType())
        .startsWith("application/problem+json"));
    assertThat(creates).filteredOn(a -> a.status() == 202).hasSizeLessThanOrEqualTo(2);
    assertThat(creates).extracting(a -> a.body().path("code").asText()).contains("rate_limited", "quota_exceeded");
    // Another user's commands are not counted against the flooding user's limit.
    assertThat(otherUsers).extracting(Answer::status).containsOnly(404);
    for (Answer created : creates) {
      if (created.status() == 202) {
        terminate(created.body().at("/session/id").asText());
      }
    }
    userLatencies.sort(null);
    note = "reports " + reportStatuses + "; user reads meanwhile " + served.size() + "x 200 (median "
        + userLatencies.get(userLatencies.size() / 2) + " ms); creates " + createStatuses;
    endScenario(info, started, Instant.now());
  }

  static Map<Integer, Long> byStatus(List<Answer> answers) {
    Map<Integer, Long> byStatus = new TreeMap<>();
    answers.forEach(a -> byStatus.merge(a.status(), 1L, Long::sum));
    return byStatus;
  }

  /** One schemathesis run over the operations whose path matches {@code paths}; the failures it reports. */
  List<String> fuzz(Path st, Path document, Path dir, String name, String token, String paths)
      throws Exception {
    Path log = dir.resolve(name + ".log");
    // One worker: with two threads, hypothesis's lambda descriptions parse source with Python 3.11's ast from both at
    // once, which CPython 3.11 does not survive ("AST constructor recursion depth mismatch", a runtime error in the
    // report, not a finding about the API).
    List<String> arguments = new ArrayList<>(List.of(st.toAbsolutePath().toString(), "run", document.toString(),
        "--url", runtime.apiUrl(), "-H", "Authorization: Bearer " + token, "--mode", "negative",
        "--checks", "not_a_server_error,status_code_conformance,content_type_conformance",
        "--phases", "examples,coverage,fuzzing", "--max-examples", "5", "--workers", "1", "--max-time", "45",
        "--generation-deterministic", "--suppress-health-check", "all", "--include-path-regex", paths,
        "--exclude-path-regex", "^/internal/connect/", "--report", "junit,har", "--report-dir", dir.resolve(name).toString()));
    // Commands that take no body and no query (DELETE, pause, rotate-token, ...) have nothing to malform: the fuzzer
    // would only repeat them, on ids it read from lists, and end sessions or detach the cluster the suite runs on.
    // Their tokens and ids are scenario 19's.
    JsonNode doc = JSON.readTree(document.toFile());
    doc.path("paths").fields().forEachRemaining(path -> path.getValue().fields().forEachRemaining(op -> {
      boolean takesQuery = false;
      for (JsonNode parameter : op.getValue().path("parameters")) {
        takesQuery |= "query".equals(parameter.path("in").asText());
      }
      if (!op.getKey().equals("get") && !op.getValue().has("requestBody") && !takesQuery) {
        arguments.addAll(List.of("--exclude-operation-id", op.getValue().path("operationId").asText()));
      }
    }));
    ProcessBuilder command = new ProcessBuilder(arguments)
        .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
    command.environment().put("SCHEMATHESIS_TELEMETRY", "false");
    Process run = command.start();
    if (!run.waitFor(5, TimeUnit.MINUTES)) {
      run.destroyForcibly();
      return List.of(name + ": schemathesis did not finish within 5 minutes");
    }
    String out = Files.readString(log);
    if (run.exitValue() == 0) {
      return List.of();
    }
    int failures = out.indexOf("FAILURES");
    return List.of(name + " (exit " + run.exitValue() + "): "
        + (failures >= 0 ? out.substring(failures, Math.min(out.length(), failures + 6_000)) : out));
  }

  /**
   * Declares a body over the internal plane's limit and sends none of it: the api must answer 413 from the headers
   * alone, without waiting for 64 MiB. Only the status line is read.
   */
  String declaredOversizedReport() throws Exception {
    URI server = URI.create(runtime.apiUrl());
    try (Socket socket = new Socket(server.getHost(), server.getPort())) {
      socket.setSoTimeout(10_000);
      String head = "POST /internal/v1/inventory HTTP/1.1\r\nHost: " + server.getHost() + "\r\nAuthorization: Bearer "
          + operatorToken() + "\r\nContent-Type: application/json\r\nContent-Length: " + (64L * 1024 * 1024 + 1)
          + "\r\n\r\n{";
      socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      return new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.US_ASCII)).readLine();
    }
  }

  /** Row counts of the tables only a request writes (background work writes usage, audit, operations, alerts). */
  Map<String, Long> writtenRows() throws Exception {
    Map<String, Long> counts = new TreeMap<>();
    try (Connection db = DriverManager.getConnection(runtime.dbUrl());
        Statement statement = db.createStatement()) {
      for (String table : List.of("teams", "users", "api_tokens", "credit_accounts", "policies", "clusters",
          "node_pools", "offerings", "images", "storage_pools", "storage_pool_clusters", "volumes", "volume_claims",
          "volume_expansions", "sessions", "connect_codes", "cli_sign_in_codes")) {
        try (ResultSet rows = statement.executeQuery("select count(*) from " + table)) {
          rows.next();
          counts.put(table, rows.getLong(1));
        }
      }
      try (ResultSet rows = statement.executeQuery(
          "select count(*) from credit_ledger where kind in ('grant', 'adjustment', 'refund')")) {
        rows.next();
        counts.put("credit_ledger (grants, adjustments, refunds)", rows.getLong(1));
      }
    }
    return counts;
  }

  /** Attaches the cluster again and waits for the attach to complete. */
  void reattach(String clusterId) throws Exception {
    Answer attach = send("POST", ApiPaths.cluster(clusterId) + "/attach", "{}", admin, Map.of());
    assertThat(attach.status()).as(attach.body().toString()).isEqualTo(202);
    assertThat(awaitOperation(attach.body().at("/operation/id").asText(), Duration.ofMinutes(3))).isEqualTo("completed");
  }

  Instant workerLastSeen(String cluster) throws Exception {
    try (Connection db = DriverManager.getConnection(runtime.dbUrl());
        PreparedStatement query = db.prepareStatement("select worker_last_seen_at from clusters where id = ?")) {
      query.setString(1, cluster);
      try (ResultSet row = query.executeQuery()) {
        row.next();
        Timestamp seen = row.getTimestamp(1);
        return seen == null ? Instant.EPOCH : seen.toInstant();
      }
    }
  }

  /** A volume of the demo user with a claim on the cluster: a session mounted it and ended. */
  String volumeWithClaim(String name, String pool) throws Exception {
    String id = api.as(demo).volumes().create(new Volume.NewVolume(name, 1, pool)).id();
    String sessionId = createSession(name, "fractional", demo, id);
    assertThat(awaitState(sessionId, List.of("running"), Duration.ofMinutes(2))).isEqualTo("running");
    terminate(sessionId);
    assertThat(claims(id)).hasSize(1);
    return id;
  }

  List<PersistentVolumeClaim> claims(String volume) {
    try (KubernetesClient kube = kube()) {
      return kube.persistentVolumeClaims().inAnyNamespace().withLabel(LabelKeys.VOLUME_ID, volume).list().getItems();
    }
  }

  String volumeStatus(String volume) throws Exception {
    return api.volumes().get(volume).status();
  }

  /** A storage pool on the suite's cluster with a capacity set by hand (the CSI capacity needs a volume sync first). */
  String manualPool(String name) throws Exception {
    return api.volumes().createPool(new StoragePool.NewPool(name, runtime.clusters().get(0).id(), "gshare-data", "all",
        null, "manual", 100, null)).id();
  }

  /** Adds (or takes away) a finalizer of another controller on the volume's one claim, as a backup tool would. */
  void holdClaim(String volume, boolean held) {
    String finalizer = "example.com/backup-hold";
    var claim = claims(volume);
    assertThat(claim).hasSize(1);
    try (KubernetesClient kube = kube()) {
      kube.persistentVolumeClaims().inNamespace(claim.get(0).getMetadata().getNamespace())
          .withName(claim.get(0).getMetadata().getName()).edit(c -> {
            if (held) {
              c.getMetadata().getFinalizers().add(finalizer);
            } else {
              c.getMetadata().getFinalizers().remove(finalizer);
            }
            return c;
          });
    }
  }

  /** The volume reclaimed within {@code within}, and its claims gone. */
  void awaitReclaimed(String volume, Duration within) {
    await().atMost(within).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(volumeStatus(volume)).isEqualTo("reclaimed"));
    assertThat(claims(volume)).isEmpty();
  }

  static void signal(long pid, String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
    assertThat(kill.waitFor()).as("kill -" + signal + " " + pid).isZero();
  }

  /** How many pollers of {@code type} the suite cluster's worker queue has. */
  int pollers(TaskQueueType type) {
    WorkflowServiceStubs temporal = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
        .setTarget(runtime.temporalAddress()).build());
    try {
      return temporal.blockingStub().describeTaskQueue(DescribeTaskQueueRequest.newBuilder().setNamespace("default")
          .setTaskQueue(TaskQueue.newBuilder().setName(TaskQueues.cluster(runtime.clusters().get(0).id())))
          .setTaskQueueType(type).build()).getPollersCount();
    } finally {
      temporal.shutdown();
    }
  }

  /** The pid of the cluster's worker, from the identity of its poller (pid@host/cluster). */
  long workerPid() throws Exception {
    String queue = "gshare-cluster-" + runtime.clusters().get(0).id();
    Instant deadline = Instant.now().plusSeconds(60);
    while (Instant.now().isBefore(deadline)) {
      for (JsonNode q : api.system().get().path("task_queues")) {
        if (q.path("name").asText().equals(queue)) {
          for (JsonNode poller : q.path("pollers")) {
            String identity = poller.path("identity").asText();
            long pid = Long.parseLong(identity.substring(0, identity.indexOf('@')));
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
              return pid;
            }
          }
        }
      }
      Thread.sleep(1_000);
    }
    throw new AssertionError("no live worker polls " + queue);
  }

  static <T> Iterable<T> iterable(Iterator<T> iterator) {
    return () -> iterator;
  }

  void grant(String userId, BigDecimal amount, String key) throws Exception {
    api.credits().grant(new Credits.Grant(userId, amount, null, key + "-" + userId));
  }

  /** The status of the node's Ready condition, as the node lifecycle controller and KWOK write it. */
  String readyCondition(String hostname) {
    try (KubernetesClient kube = kube()) {
      return kube.nodes().withName(hostname).get().getStatus().getConditions().stream()
          .filter(c -> "Ready".equals(c.getType())).map(c -> c.getStatus()).findFirst().orElse(null);
    }
  }

  String nodeIdOf(String hostname) throws Exception {
    for (Node n : api.nodes().list().items()) {
      if (hostname.equals(n.hostname())) {
        return n.id();
      }
    }
    throw new AssertionError("no node " + hostname);
  }

  /** Until the worker's inventory shows the node schedulable and undrained (an uncordon is seen at its next report). */
  void awaitSchedulable(String nodeId) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(1));
    while (Instant.now().isBefore(deadline)) {
      for (Node n : api.nodes().list().items()) {
        if (nodeId.equals(n.id()) && Boolean.TRUE.equals(n.schedulable()) && n.drainState() == null
            && "ready".equals(n.liveness())) {
          return;
        }
      }
      Thread.sleep(500);
    }
    throw new AssertionError("node " + nodeId + " is not schedulable again within a minute");
  }

  String awaitOperation(String id, Duration within) throws Exception {
    Instant deadline = Instant.now().plus(within);
    String status = null;
    while (Instant.now().isBefore(deadline)) {
      status = api.operations().get(id).status();
      if (!"running".equals(status)) {
        return status;
      }
      Thread.sleep(500);
    }
    return status;
  }

  /** The operator token of the cluster's worker, read from its Secret as the kubelet mounts it. */
  String operatorToken() {
    try (KubernetesClient kube = kube()) {
      var secret = kube.secrets().inNamespace(WorkerObjects.NAMESPACE)
          .withName(WorkerObjects.TOKEN_SECRET).get();
      String key = WorkerObjects.TOKEN_KEY;
      if (secret.getData() != null && secret.getData().containsKey(key)) {
        return new String(Base64.getDecoder().decode(secret.getData().get(key)),
            StandardCharsets.UTF_8).trim();
      }
      return secret.getStringData().get(key).trim();
    }
  }

  // ---------------------------------------------------------------------------------------------------------------

  record BigDecimalBalance(BigDecimal value) {}

  BigDecimalBalance balance(String userId) throws Exception {
    return new BigDecimalBalance(api.credits().of(userId).balance());
  }

  /** Asks for a session of the demo catalogue's offering in {@code mode} (exclusive or fractional). */
  Answer requestSession(String name, String mode, String token) throws Exception {
    return requestSession(name, mode, token, null);
  }

  /** @param volume the volume it mounts; null for none */
  Answer requestSession(String name, String mode, String token, String volume) throws Exception {
    String offering = catalogue.offerings().stream().filter(o -> mode.equals(o.mode())).findFirst().orElseThrow().id();
    return send("POST", ApiPaths.SESSIONS, new NewSession(offering, catalogue.imageId(), volume, name, null), token,
        Map.of());
  }

  /** A session mounting {@code volume} accepted (202); its id. */
  String createSession(String name, String mode, String token, String volume) throws Exception {
    Answer created = requestSession(name, mode, token, volume);
    assertThat(created.status()).as(created.body().toString()).isEqualTo(202);
    return created.body().at("/session/id").asText();
  }

  /** A session accepted (202); its id. */
  String createSession(String name, String mode, String token) throws Exception {
    Answer created = requestSession(name, mode, token);
    assertThat(created.status()).as(created.body().toString()).isEqualTo(202);
    return created.body().at("/session/id").asText();
  }

  /** A fractional session of the demo user, running. */
  String startSession(String name) throws Exception {
    String id = createSession(name, "fractional", demo);
    assertThat(awaitState(id, List.of("running"), Duration.ofMinutes(2))).isEqualTo("running");
    return id;
  }

  /** How many billing windows the session has, and how many of them are open. */
  List<Long> billingWindows(String session) throws Exception {
    try (var db = DriverManager.getConnection(runtime.dbUrl());
        var query = db.prepareStatement("select count(*), count(*) filter (where closed_at is null) from billing_windows"
            + " where session_id = ?")) {
      query.setString(1, session);
      try (var rs = query.executeQuery()) {
        rs.next();
        return List.of(rs.getLong(1), rs.getLong(2));
      }
    }
  }

  void terminate(String session) throws Exception {
    send("DELETE", ApiPaths.session(session), null, demo, Map.of());
    awaitState(session, List.of("terminated", "failed"), Duration.ofMinutes(2));
  }

  String awaitState(String session, List<String> states, Duration within) throws Exception {
    Instant deadline = Instant.now().plus(within);
    String state = null;
    while (Instant.now().isBefore(deadline)) {
      state = api.sessions().get(session).session().state();
      if (states.contains(state)) {
        return state;
      }
      Thread.sleep(500);
    }
    return state;
  }

  /**
   * {@code method path} as the holder of {@code token}, through the API client's raw door
   * ({@link GshareClient#exchange}): whatever the server answers, error statuses included. {@code body} is sent as
   * it is when a String (the bad-input scenarios' malformed ones), else as the API's JSON; null: no body.
   */
  Answer send(String method, String path, Object body, String token, Map<String, String> headers) throws Exception {
    ApiResponse response;
    try {
      response = api.as(token).exchange(method, path, body, headers);
    } catch (ApiCallException e) {
      // A request cut off (the api killed under it) is an IOException, as the scenarios expect of the transport.
      throw e.getCause() instanceof IOException cut ? cut : e;
    }
    JsonNode json = response.text().isBlank() ? JSON.nullNode() : ApiJson.MAPPER.readTree(response.body());
    return new Answer(response.status(), json, response.contentType(),
        response.headers().firstValue("Retry-After").orElse(null));
  }

  @FunctionalInterface
  interface Call {
    Answer call(int i) throws Exception;
  }

  static List<Answer> parallel(int count, int threads, Call call) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Answer>> futures = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        int n = i;
        futures.add(pool.submit((Callable<Answer>) () -> call.call(n)));
      }
      List<Answer> answers = new ArrayList<>();
      for (Future<Answer> f : futures) {
        answers.add(f.get());
      }
      return answers;
    } finally {
      pool.shutdownNow();
    }
  }
}
