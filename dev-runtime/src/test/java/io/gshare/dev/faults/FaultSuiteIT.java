package io.gshare.dev.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.model.WorkerObjects;
import io.gshare.dev.DemoCatalogue;
import io.gshare.dev.DevRuntime;
import io.gshare.dev.TestRuntimes;
import io.gshare.sim.kube.ApiFault;
import io.gshare.sim.kube.ApiFaultKind;
import io.gshare.sim.kube.ApiFaultQueue;
import io.gshare.sim.kube.KubeCluster;
import io.gshare.sim.kube.LocalKubernetes;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.kube.KubeNames;
import io.gshare.workflows.kube.LabelKeys;
import io.gshare.workflows.session.SessionWorkflow;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

/**
 * The fault and bad-input suite: each scenario injects one failure a GPU platform meets into the dev runtime's real
 * parts (PostgreSQL, the Temporal dev server, the GPU cluster, the api and cluster-worker processes) and ends
 * by checking the four invariants ({@link Invariants}); a broken one fails the scenario with the rows that break
 * it. The fast scenarios run in {@code make test}; those tagged {@code slow-fault} under {@code make test-faults}.
 * The table of scenario, invariants held and time is printed at the end and written to
 * {@code target/fault-suite.txt}.
 *
 * <p>The cluster is a real Kubernetes ({@code KubeCluster}: kube-apiserver, etcd, controller-manager, scheduler, KWOK
 * nodes with simulated GPUs) whose API the api and the worker reach through its {@code FaultProxy}: apiserver failures
 * are injected there (scenarios 6 and 7), the rest of the time every request is the real apiserver's to answer. The
 * suite's own checks go to the apiserver directly ({@link #kube()}), so they never meet a fault meant for gShare.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FaultSuiteIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration SETTLE = Duration.ofSeconds(20);
  private static final Duration VOLUME_GRACE = Duration.ofSeconds(30);

  private DevRuntime runtime;
  private Path dataDir;
  private Invariants invariants;
  private String admin;
  private String demo;
  private DemoCatalogue.Demo catalogue;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final Map<String, String> table = Collections.synchronizedMap(new TreeMap<>());
  /** What gShare made of the current scenario's fault, for its row of the table. */
  private String note;

  record Answer(int status, JsonNode body, String contentType, String retryAfter) {}

  @BeforeAll
  void start() throws Exception {
    // A kept data directory: the Temporal server keeps its state in a file, so scenario 5 can restart it.
    dataDir = Files.createTempDirectory("gshare-faults-");
    // A deleted volume's grace of seconds, not a day: scenario 17 races its end.
    // Volume syncs every 10 s, not 5 min: scenario 8 watches a deleted claim be recorded.
    runtime = TestRuntimes.startWithFaultProxy("fault-suite-logs", dataDir, "gshare.volumes.reclaim-grace=" + VOLUME_GRACE.toSeconds() + "s",
        "gshare.cluster-worker.volume-sync-interval-seconds=10");
    invariants = new Invariants(runtime, SETTLE);
    admin = runtime.adminToken();
    catalogue = runtime.demo();
    demo = Files.readString(catalogue.tokenFile()).trim();
  }

  @AfterAll
  void stop() throws Exception {
    int width = table.keySet().stream().mapToInt(String::length).max().orElse(8) + 3;
    StringBuilder out = new StringBuilder(String.format("%-" + width + "s%-40s %-8s%s%n", "SCENARIO", "INVARIANTS",
        "TIME", "WHAT GSHARE DID"));
    table.entrySet().stream().sorted(java.util.Comparator.comparing(e -> Integer.parseInt(e.getKey().split(" ")[0])))
        .forEach(e -> out.append(String.format("%-" + width + "s%s%n", e.getKey(), e.getValue())));
    System.out.println(out);
    Files.writeString(Path.of("target", "fault-suite.txt"), out.toString());
    if (runtime != null) {
      runtime.close();
    }
    if (dataDir != null) {
      try (var paths = Files.walk(dataDir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * Ends a scenario: the four invariants must hold; the row goes into the table. The first check waits until the
   * settle time has passed since the last fault, so what nothing repaired (a running session whose pod is gone) is
   * seen as settled, not as still moving.
   */
  private void endScenario(TestInfo info, Instant started, Instant lastFault) throws Exception {
    Duration sinceFault = Duration.between(lastFault, Instant.now());
    if (sinceFault.compareTo(SETTLE) < 0) {
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

  @Test
  @org.junit.jupiter.api.DisplayName("10 the same idempotency key 100 times in parallel; the same key with another body")
  void theSameIdempotencyKeyAHundredTimesInParallel(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String key = "fault-10-" + System.nanoTime();
    String body = "{\"user_id\":\"" + catalogue.demoUserId() + "\",\"amount\":5,\"description\":\"fault 10\"}";
    BigDecimalBalance before = balance(catalogue.demoUserId());
    List<Answer> answers = parallel(100, 32, i -> send("POST", "/api/v1/credits/grants", body, admin,
        Map.of("Idempotency-Key", key)));
    assertThat(answers).extracting(Answer::status).allMatch(s -> s == 200 || s == 201);
    assertThat(answers).filteredOn(a -> a.status() == 201).hasSize(1);
    assertThat(answers).extracting(a -> a.body().path("entry_id").asLong()).containsOnly(
        answers.get(0).body().path("entry_id").asLong());
    assertThat(balance(catalogue.demoUserId()).value()).isEqualByComparingTo(before.value().add(
        java.math.BigDecimal.valueOf(5)));

    Answer other = send("POST", "/api/v1/credits/grants", body.replace("\"amount\":5", "\"amount\":6"), admin,
        Map.of("Idempotency-Key", key));
    assertThat(other.status()).isEqualTo(409);
    assertThat(other.contentType()).startsWith("application/problem+json");
    assertThat(other.body().path("code").asText()).isEqualTo("conflict");
    assertThat(balance(catalogue.demoUserId()).value()).isEqualByComparingTo(before.value().add(
        java.math.BigDecimal.valueOf(5)));
    endScenario(info, started, started.minus(SETTLE));
  }

  @Test
  @org.junit.jupiter.api.DisplayName("11 1,000 pause/resume commands on one session in a burst")
  void aThousandPauseAndResumeCommandsInABurst(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String session = startSession("fault-11");
    AtomicInteger n = new AtomicInteger();
    List<Answer> answers = parallel(1000, 16, i -> send("POST", "/api/v1/sessions/" + session
        + (n.getAndIncrement() % 2 == 0 ? "/pause" : "/resume"), null, demo, Map.of()));
    Map<Integer, Long> byStatus = new TreeMap<>();
    answers.forEach(a -> byStatus.merge(a.status(), 1L, Long::sum));
    // Each command is accepted or refused in words; none fails the server.
    assertThat(byStatus.keySet()).as("statuses " + byStatus).allMatch(s -> s < 500);
    answers.stream().filter(a -> a.status() >= 400).forEach(a -> assertThat(a.contentType())
        .startsWith("application/problem+json"));
    Instant burstEnded = Instant.now();
    // Refused at once, in words, while one command runs and one waits.
    assertThat(byStatus.keySet()).as("statuses " + byStatus).contains(409);
    String state = awaitState(session, List.of("running", "paused"), Duration.ofMinutes(3));
    assertThat(state).isIn("running", "paused");
    endScenario(info, started, burstEnded);
    terminate(session);
  }

  @Test
  @org.junit.jupiter.api.DisplayName("8 out-of-band deletion of a session's pod, Service and Ingress")
  void outOfBandDeletionOfASessionsObjects(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String session = startSession("fault-8");
    try (KubernetesClient kube = kube()) {
      kube.pods().inNamespace(KubeNames.SESSIONS_NAMESPACE).withLabel(LabelKeys.SESSION_ID, session).delete();
      kube.services().inNamespace(KubeNames.SESSIONS_NAMESPACE).withLabel(LabelKeys.SESSION_ID, session).delete();
      kube.network().v1().ingresses().inNamespace(KubeNames.SESSIONS_NAMESPACE)
          .withLabel(LabelKeys.SESSION_ID, session).delete();
    }
    Instant deleted = Instant.now();
    // gShare notices: within two minutes the session has its pod again, or it is no longer running.
    Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
    String state = "running";
    boolean hasPod = false;
    while (Instant.now().isBefore(deadline)) {
      state = send("GET", "/api/v1/sessions/" + session, null, admin, Map.of()).body().at("/session/state").asText();
      try (KubernetesClient kube = kube()) {
        hasPod = !kube.pods().inNamespace(KubeNames.SESSIONS_NAMESPACE).withLabel(LabelKeys.SESSION_ID, session)
            .list().getItems().isEmpty();
      }
      if (!"running".equals(state) || hasPod) {
        break;
      }
      Thread.sleep(1_000);
    }
    assertThat(!"running".equals(state) || hasPod).as("session " + session + " " + state + " without its pod").isTrue();
    note = "the session was " + (hasPod ? "given a new pod" : state);
    endScenario(info, started, deleted);
    terminate(session);
  }

  /**
   * The worker's token Secret and a running session's volume claim deleted by hand. The worker's next report says
   * its Secret is gone and the api writes a fresh token into it (a rotation of that cluster), which the worker takes
   * without a restart. The claim, mounted, waits on {@code kubernetes.io/pvc-protection} and the session keeps
   * running; once a pause lets it go, the volume sync records it missing, and the resume claims the volume again.
   */
  @Test
  @org.junit.jupiter.api.DisplayName("8 out-of-band deletion of the worker's Secret and of a session's volume claim")
  void outOfBandDeletionOfTheWorkersSecretAndASessionsClaim(TestInfo info) throws Exception {
    Instant started = Instant.now();
    DevRuntime.AttachedCluster cluster = runtime.clusters().get(0);
    String pool = manualPool("fault-8");
    String volume = send("POST", "/api/v1/volumes", "{\"name\":\"fault-8\",\"size_gb\":1,\"pool_id\":\"" + pool + "\"}",
        demo, Map.of()).body().path("id").asText();
    String session = createSession("fault-8-volume", "fractional", demo, volume);
    assertThat(awaitState(session, List.of("running"), Duration.ofMinutes(2))).isEqualTo("running");
    String tokenBefore = tokenSecretJti(cluster);
    try (KubernetesClient kube = kube(cluster)) {
      kube.secrets().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.TOKEN_SECRET).delete();
      kube.persistentVolumeClaims().inNamespace(KubeNames.SESSIONS_NAMESPACE).withLabel(LabelKeys.VOLUME_ID, volume).delete();
    }
    Instant deleted = Instant.now();

    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(tokenSecretJti(cluster)).as("the Secret written again").isNotNull().isNotEqualTo(tokenBefore));
    Duration secretBack = Duration.between(deleted, Instant.now());
    assertThat(awaitOperation(WorkflowIds.tokenRotation(cluster.id()), Duration.ofMinutes(2))).isEqualTo("completed");

    // Mounted: the claim is held by its protection, the session runs on.
    assertThat(claims(volume)).hasSize(1).allMatch(c -> c.getMetadata().getDeletionTimestamp() != null);
    assertThat(awaitState(session, List.of("running"), Duration.ofSeconds(5))).isEqualTo("running");
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(claimPhase(volume)).isEqualTo("Terminating"));

    assertThat(send("POST", "/api/v1/sessions/" + session + "/pause", null, demo, Map.of()).status()).isIn(200, 202);
    assertThat(awaitState(session, List.of("paused"), Duration.ofMinutes(2))).isEqualTo("paused");
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(claims(volume)).isEmpty());
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(claimPhase(volume)).isEqualTo("Missing"));

    assertThat(send("POST", "/api/v1/sessions/" + session + "/resume", null, demo, Map.of()).status()).isIn(200, 202);
    assertThat(awaitState(session, List.of("running"), Duration.ofMinutes(2))).isEqualTo("running");
    assertThat(claims(volume)).hasSize(1).allMatch(c -> c.getMetadata().getDeletionTimestamp() == null);
    Instant resumed = Instant.now();
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(claimPhase(volume)).isEqualTo("Bound"));
    note = "the Secret was written again in " + secretBack.toSeconds() + " s; the claim held while mounted, recorded"
        + " missing after the pause, claimed again by the resume";
    endScenario(info, started, resumed);
    terminate(session);
  }

  /** An admin client of the suite's cluster that goes straight to its apiserver, past the fault proxy. */
  private KubernetesClient kube() {
    return kube(runtime.clusters().get(0));
  }

  private static KubernetesClient kube(DevRuntime.AttachedCluster cluster) {
    return cluster.kube().kubernetes().newClient();
  }

  /** The jti of the token in the cluster's worker Secret; null when the Secret is gone. */
  private static String tokenSecretJti(DevRuntime.AttachedCluster cluster) throws Exception {
    try (KubernetesClient kube = kube(cluster)) {
      var secret = kube.secrets().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.TOKEN_SECRET).get();
      if (secret == null) {
        return null;
      }
      String token = secret.getData() != null && secret.getData().containsKey(WorkerObjects.TOKEN_KEY)
          ? new String(java.util.Base64.getDecoder().decode(secret.getData().get(WorkerObjects.TOKEN_KEY)),
              java.nio.charset.StandardCharsets.UTF_8)
          : secret.getStringData().get(WorkerObjects.TOKEN_KEY);
      return JSON.readTree(java.util.Base64.getUrlDecoder().decode(token.split("\\.")[1])).path("jti").asText();
    }
  }

  /** The phase the control plane records for the volume's claim on the suite's cluster. */
  private String claimPhase(String volume) throws Exception {
    JsonNode claims = send("GET", "/api/v1/volumes/" + volume, null, admin, Map.of()).body().path("claims");
    return claims.size() == 0 ? null : claims.get(0).path("phase").asText(null);
  }

  /**
   * Schemathesis (PyPI, installed by hack/tools.sh) generates requests that break the served OpenAPI document's
   * schemas for every /api and /internal operation (negative mode: wrong types, missing members, out-of-range values,
   * malformed bodies) with an admin's and with the cluster-worker's token. No answer may be a 5xx, a status the
   * operation does not declare, or anything but problem+json for an error; and nothing is written.
   */
  @Test
  @org.junit.jupiter.api.DisplayName("18 oversized and malformed bodies on every endpoint (schemathesis, negative mode)")
  void malformedAndOversizedBodiesOnEveryEndpoint(TestInfo info) throws Exception {
    Instant started = Instant.now();
    Path st = Path.of(System.getProperty("gshare.dev.schemathesis", "../.tools/schemathesis/bin/st"));
    assertThat(st).as("schemathesis: run hack/tools.sh").isExecutable();
    Map<String, Long> before = writtenRows();

    Path dir = Path.of("target", "schemathesis").toAbsolutePath();
    Files.createDirectories(dir);
    Path document = dir.resolve("openapi.json");
    HttpResponse<String> served = http.send(HttpRequest.newBuilder(URI.create(runtime.apiUrl() + "/api/v1/openapi"))
        .header("Authorization", "Bearer " + admin).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(served.statusCode()).isEqualTo(200);
    Files.writeString(document, served.body());
    List<String> failed = new ArrayList<>();
    failed.addAll(fuzz(st, document, dir, "api", admin, "^/api/"));
    failed.addAll(fuzz(st, document, dir, "internal", operatorToken(), "^/internal/v1/"));

    // Bodies over the limits, declared and streamed: 413 before anything is read, in words.
    byte[] twoMiB = new byte[2 * 1024 * 1024];
    java.util.Arrays.fill(twoMiB, (byte) ' ');
    for (boolean chunked : List.of(false, true)) {
      HttpRequest.BodyPublisher body = chunked
          ? HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(twoMiB))
          : HttpRequest.BodyPublishers.ofByteArray(twoMiB);
      HttpResponse<String> big = http.send(HttpRequest.newBuilder(URI.create(runtime.apiUrl() + "/api/v1/teams"))
          .header("Authorization", "Bearer " + admin).header("Content-Type", "application/json")
          .POST(body).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(big.statusCode()).as((chunked ? "chunked " : "") + "2 MiB body: " + big.body()).isEqualTo(413);
      assertThat(big.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
    }
    assertThat(declaredOversizedReport()).as("a report declaring 64 MiB + 1 byte").startsWith("HTTP/1.1 413");

    Map<String, Long> after = writtenRows();
    assertThat(after).as("rows written by refused requests").isEqualTo(before);
    assertThat(failed).as("schemathesis's failures (logs in " + dir + ")").isEmpty();
    note = "no 5xx, no undeclared status, every error problem+json, nothing written";
    endScenario(info, started, Instant.now());
  }

  /**
   * A worker flooding the internal plane is refused per cluster (429 rate_limited, Retry-After) while users are
   * served; a user flooding session creates meets its quota and its rate limit while another user's commands are
   * not counted against it.
   */
  @Test
  @org.junit.jupiter.api.Tag("slow-fault")
  @org.junit.jupiter.api.DisplayName("20 a flood of reports from one worker and of creates from one user")
  void aFloodOfReportsAndOfCreates(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String operator = operatorToken();
    List<Long> userLatencies = Collections.synchronizedList(new ArrayList<>());
    // The other callers, beside the flood: a user reading, then another user's commands.
    ExecutorService others = Executors.newFixedThreadPool(2);
    try {
      flood(info, started, operator, userLatencies, others);
    } finally {
      others.shutdownNow();
    }
  }

  private void flood(TestInfo info, Instant started, String operator, List<Long> userLatencies, ExecutorService others)
      throws Exception {
    java.util.concurrent.atomic.AtomicBoolean flooding = new java.util.concurrent.atomic.AtomicBoolean(true);
    Future<List<Integer>> userAnswers = others.submit(() -> {
      List<Integer> statuses = new ArrayList<>();
      while (flooding.get()) {
        long t0 = System.nanoTime();
        statuses.add(send("GET", "/api/v1/sessions", null, demo, Map.of()).status());
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
    JsonNode policy = send("GET", "/api/v1/policies/default", null, admin, Map.of()).body();
    com.fasterxml.jackson.databind.node.ObjectNode input = JSON.createObjectNode();
    for (String member : List.of("max_concurrent_sessions", "max_runtime_minutes", "max_runtime_action",
        "idle_timeout_minutes", "idle_timeout_minutes_fractional", "overflow", "placement", "min_balance_to_start",
        "volume_quota_gb", "volume_quota_count", "team_volume_quota_gb", "team_volume_quota_count")) {
      if (policy.hasNonNull(member)) {
        input.set(member, policy.get(member));
      }
    }
    Answer limited = send("PUT", "/api/v1/policies/default", input.deepCopy().put("max_concurrent_sessions", 2)
        .toString(), admin, Map.of());
    assertThat(limited.status()).as(limited.body().toString()).isEqualTo(200);
    List<Answer> creates;
    List<Answer> otherUsers;
    try {
      AtomicInteger n = new AtomicInteger();
      Future<List<Answer>> otherUser = others.submit(() -> {
        List<Answer> answers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          answers.add(send("DELETE", "/api/v1/sessions/ses_missing" + i, null, admin, Map.of()));
        }
        return answers;
      });
      creates = parallel(200, 16, i -> requestSession("fault-20-" + n.incrementAndGet(), "fractional", demo));
      otherUsers = otherUser.get();
    } finally {
      Answer restored = send("PUT", "/api/v1/policies/default", input.toString(), admin, Map.of());
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

  private static Map<Integer, Long> byStatus(List<Answer> answers) {
    Map<Integer, Long> byStatus = new TreeMap<>();
    answers.forEach(a -> byStatus.merge(a.status(), 1L, Long::sum));
    return byStatus;
  }

  /** One schemathesis run over the operations whose path matches {@code paths}; the failures it reports. */
  private List<String> fuzz(Path st, Path document, Path dir, String name, String token, String paths)
      throws Exception {
    Path log = dir.resolve(name + ".log");
    List<String> arguments = new ArrayList<>(List.of(st.toAbsolutePath().toString(), "run", document.toString(),
        "--url", runtime.apiUrl(), "-H", "Authorization: Bearer " + token, "--mode", "negative",
        "--checks", "not_a_server_error,status_code_conformance,content_type_conformance",
        "--phases", "examples,coverage,fuzzing", "--max-examples", "5", "--workers", "2", "--max-time", "45",
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
    if (!run.waitFor(5, java.util.concurrent.TimeUnit.MINUTES)) {
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
  private String declaredOversizedReport() throws Exception {
    URI api = URI.create(runtime.apiUrl());
    try (java.net.Socket socket = new java.net.Socket(api.getHost(), api.getPort())) {
      socket.setSoTimeout(10_000);
      String head = "POST /internal/v1/inventory HTTP/1.1\r\nHost: " + api.getHost() + "\r\nAuthorization: Bearer "
          + operatorToken() + "\r\nContent-Type: application/json\r\nContent-Length: " + (64L * 1024 * 1024 + 1)
          + "\r\n\r\n{";
      socket.getOutputStream().write(head.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      return new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
          java.nio.charset.StandardCharsets.US_ASCII)).readLine();
    }
  }

  /** Row counts of the tables only a request writes (background work writes usage, audit, operations, alerts). */
  private Map<String, Long> writtenRows() throws Exception {
    Map<String, Long> counts = new TreeMap<>();
    try (java.sql.Connection db = java.sql.DriverManager.getConnection(runtime.dbUrl());
        java.sql.Statement statement = db.createStatement()) {
      for (String table : List.of("teams", "users", "api_tokens", "credit_accounts", "policies", "clusters",
          "node_pools", "offerings", "images", "storage_pools", "storage_pool_clusters", "volumes", "volume_claims",
          "volume_expansions", "sessions", "connect_codes", "cli_sign_in_codes")) {
        try (java.sql.ResultSet rows = statement.executeQuery("select count(*) from " + table)) {
          rows.next();
          counts.put(table, rows.getLong(1));
        }
      }
      try (java.sql.ResultSet rows = statement.executeQuery(
          "select count(*) from credit_ledger where kind in ('grant', 'adjustment', 'refund')")) {
        rows.next();
        counts.put("credit_ledger (grants, adjustments, refunds)", rows.getLong(1));
      }
    }
    return counts;
  }

  /**
   * The cluster-worker frozen (SIGSTOP) for two minutes and thawed: a partition as the control plane sees it, since it
   * neither polls Temporal nor heartbeats nor reports. A session created and a pause sent meanwhile are accepted (the
   * pause answers 202 after its 20 s wait) and wait in Temporal's queue; once the worker is back they are carried out,
   * and nothing is left half-done.
   */
  @Test
  @org.junit.jupiter.api.Tag("slow-fault")
  @org.junit.jupiter.api.DisplayName("2 the cluster-worker cut off from Temporal for 2 minutes, then back")
  void theWorkerCutOffForTwoMinutes(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String running = startSession("fault-2-running");
    long worker = workerPid();
    signal(worker, "STOP");
    Instant frozen = Instant.now();
    String created;
    Answer paused;
    try {
      created = createSession("fault-2-created", "fractional", demo);
      paused = send("POST", "/api/v1/sessions/" + running + "/pause", null, demo, Map.of());
      Thread.sleep(Math.max(0, Duration.between(Instant.now(), frozen.plus(Duration.ofMinutes(2))).toMillis()));
      // Nothing was carried out on the cluster meanwhile, and nothing gave up.
      assertThat(send("GET", "/api/v1/sessions/" + created, null, demo, Map.of()).body().at("/session/state").asText())
          .isIn("pending", "creating");
    } finally {
      signal(worker, "CONT");
    }
    Instant thawed = Instant.now();
    // Accepted, not carried out: the request answered after its 20 s wait instead of hanging until the thaw.
    assertThat(paused.status()).as(paused.body().toString()).isEqualTo(202);
    assertThat(paused.body().at("/session/state").asText()).isIn("running", "pausing");
    String createdState = awaitState(created, List.of("running", "failed"), Duration.ofMinutes(3));
    String pausedState = awaitState(running, List.of("paused"), Duration.ofMinutes(3));
    assertThat(createdState).isEqualTo("running");
    assertThat(pausedState).isEqualTo("paused");
    note = "after the thaw the waiting create ran and the pause was carried out";
    endScenario(info, started, thawed);
    terminate(created);
    terminate(running);
  }

  /**
   * The worker's in-cluster token as the kubelet projects it: a bound service-account token from the real TokenRequest
   * API, written to the file the worker reads (the dev runtime's deployer plays the kubelet). A real apiserver mints
   * none shorter than 10 minutes, so the tokens are ended as an operator revokes them: every 15 s for a minute the
   * worker's ServiceAccount is deleted, which the apiserver then refuses every bound token of with 401, and the
   * cluster is attached again, which makes the account anew and projects a token of it. The worker, never
   * restarted, must keep reporting and running a session's activities, reading each new token from its file.
   */
  @Test
  @org.junit.jupiter.api.Tag("slow-fault")
  @org.junit.jupiter.api.DisplayName("14 the worker's service-account token revoked every 15 s, a new one projected")
  void theWorkersServiceAccountTokenRevoked(TestInfo info) throws Exception {
    Instant started = Instant.now();
    DevRuntime.AttachedCluster cluster = runtime.clusters().get(0);
    Path tokenFile = runtime.dataDir().resolve("workers").resolve(cluster.id()).resolve("serviceaccount-token");
    long worker = workerPid();
    long refusedBefore = cluster.kube().faultProxy().upstreamAnswers(401);
    java.util.Set<String> tokens = new java.util.HashSet<>(List.of(Files.readString(tokenFile).trim()));
    String session = createSession("fault-14-sa", "fractional", demo);
    Instant until = Instant.now().plusSeconds(60);
    Instant nextRevocation = Instant.now();
    while (Instant.now().isBefore(until)) {
      if (!Instant.now().isBefore(nextRevocation)) {
        try (KubernetesClient kube = kube()) {
          kube.serviceAccounts().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.NAME).delete();
        }
        reattach(cluster.id());
        nextRevocation = nextRevocation.plusSeconds(15);
      }
      tokens.add(Files.readString(tokenFile).trim());
      Instant seen = Instant.parse(send("GET", "/api/v1/clusters/" + cluster.id(), null, admin, Map.of()).body()
          .path("worker_last_seen_at").asText());
      assertThat(seen).as("the worker reports throughout").isAfter(Instant.now().minusSeconds(20));
      Thread.sleep(2_000);
    }
    Instant revoked = Instant.now();
    assertThat(awaitState(session, List.of("running", "failed"), Duration.ofMinutes(1))).isEqualTo("running");
    long refused = cluster.kube().faultProxy().upstreamAnswers(401) - refusedBefore;
    assertThat(tokens.size() - 1).as("tokens projected in a minute of revocations").isGreaterThanOrEqualTo(4);
    assertThat(workerPid()).as("the worker, never restarted").isEqualTo(worker);
    note = (tokens.size() - 1) + " tokens projected in a minute; " + refused + " request(s) met a revoked token (401)"
        + " and were sent again with the file's new one";
    endScenario(info, started, revoked);
    terminate(session);
  }

  /** Attaches the cluster again and waits for the attach to complete. */
  private void reattach(String clusterId) throws Exception {
    Answer attach = send("POST", "/api/v1/clusters/" + clusterId + "/attach", "{}", admin, Map.of());
    assertThat(attach.status()).as(attach.body().toString()).isEqualTo(202);
    assertThat(awaitOperation(attach.body().at("/operation/id").asText(), Duration.ofMinutes(3))).isEqualTo("completed");
  }

  /**
   * The worker's operator token expires under it (its mounted file now holds an expired one): its reports are refused
   * 401 and the cluster is seen no more; a rotation writes a fresh token into its Secret, the worker reads it from
   * the file without a restart, and its reports are taken again.
   */
  @Test
  @org.junit.jupiter.api.DisplayName("14 the worker's operator token expiring, then rotated")
  void theOperatorTokenExpiringThenRotated(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String cluster = runtime.clusters().get(0).id();
    String current = operatorToken();
    String expired = TokenForgery.of(current, runtime.dataDir().resolve("keys").resolve("internal-signing.jwks.json"))
        .flawed().get("expired");
    Path tokenFile = runtime.dataDir().resolve("workers").resolve(cluster)
        .resolve(io.gshare.activities.cluster.model.WorkerObjects.TOKEN_KEY);
    assertThat(tokenFile).as("the worker's mounted token").exists();
    Files.writeString(tokenFile, expired);
    Instant expiredAt = Instant.now();
    // The worker reports every 5 s here: after 15 s without a report it has been refused three times.
    Thread.sleep(3_000);
    Instant lastSeen = workerLastSeen(cluster);
    Thread.sleep(15_000);
    assertThat(workerLastSeen(cluster)).as("reports refused with the expired token").isEqualTo(lastSeen);

    Answer rotation = send("POST", "/api/v1/clusters/" + cluster + "/rotate-token", null, admin, Map.of());
    assertThat(rotation.status()).as(rotation.body().toString()).isEqualTo(202);
    String operation = rotation.body().at("/operation/id").asText();
    assertThat(awaitOperation(operation, Duration.ofMinutes(3))).as("rotation " + operation).isEqualTo("completed");
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
        assertThat(workerLastSeen(cluster)).as("reports taken again").isAfter(lastSeen));
    assertThat(Files.readString(tokenFile).trim()).isNotEqualTo(expired);
    note = "refused 401 for " + Duration.between(expiredAt, Instant.now()).toSeconds()
        + " s; the rotation's token was read from the file without a restart";
    endScenario(info, started, Instant.now());
  }

  /**
   * A worker whose clock is 5 minutes ahead, then 5 minutes behind: the usage samples it stamps are moved onto the
   * control plane's clock, so none lies in the future (where the idle reaper never reads) or minutes in the past
   * (where it would pause a session early). Tokens are minted and checked by the api alone, and billing windows are
   * the api's own clock, so the skew reaches nothing else.
   */
  @Test
  @org.junit.jupiter.api.DisplayName("13 clock skew of plus and minus 5 minutes between the api and a worker")
  void clockSkewOfFiveMinutesBetweenTheApiAndAWorker(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String session = startSession("fault-13");
    String operator = operatorToken();
    List<String> written = new ArrayList<>();
    for (Duration ahead : List.of(Duration.ofMinutes(5), Duration.ofMinutes(-5))) {
      Instant workerNow = Instant.now().plus(ahead);
      Answer report = send("POST", "/internal/v1/usage", "{\"samples\":[{\"session_id\":\"" + session
          + "\",\"gpu_util_percent\":42.5,\"sampled_at\":\"" + workerNow + "\",\"last_kernel_at\":\""
          + workerNow.minusSeconds(30) + "\",\"source\":\"hami\"}]}", operator, Map.of());
      Instant receivedAt = Instant.now();
      assertThat(report.status()).as(report.body().toString()).isEqualTo(200);
      try (java.sql.Connection db = java.sql.DriverManager.getConnection(runtime.dbUrl());
          java.sql.PreparedStatement query = db.prepareStatement("select sampled_at, last_kernel_at from session_usage"
              + " where session_id = ? and gpu_util_percent = 42.5 order by id desc limit 1")) {
        query.setString(1, session);
        try (java.sql.ResultSet row = query.executeQuery()) {
          assertThat(row.next()).isTrue();
          Instant sampled = row.getTimestamp(1).toInstant();
          Instant kernel = row.getTimestamp(2).toInstant();
          assertThat(Duration.between(sampled, receivedAt).abs()).as("a worker " + ahead + " ahead: stored " + sampled)
              .isLessThan(Duration.ofSeconds(10));
          assertThat(Duration.between(kernel, sampled)).isEqualTo(Duration.ofSeconds(30));
          written.add(ahead.toMinutes() + " min -> " + Duration.between(receivedAt, sampled).toMillis() + " ms");
        }
      }
    }
    note = "samples stamped " + String.join(", ", written) + " from the api's clock";
    endScenario(info, started, Instant.now());
    terminate(session);
  }

  private Instant workerLastSeen(String cluster) throws Exception {
    try (java.sql.Connection db = java.sql.DriverManager.getConnection(runtime.dbUrl());
        java.sql.PreparedStatement query = db.prepareStatement("select worker_last_seen_at from clusters where id = ?")) {
      query.setString(1, cluster);
      try (java.sql.ResultSet row = query.executeQuery()) {
        row.next();
        java.sql.Timestamp seen = row.getTimestamp(1);
        return seen == null ? Instant.EPOCH : seen.toInstant();
      }
    }
  }

  /**
   * A deleted volume's claim held by a foreign finalizer: the reclaim waits on it in words and finishes once the
   * finalizer goes. Another volume restored one second before its grace ends: restored and kept, or refused 409 and
   * reclaimed, never both.
   */
  @Test
  @org.junit.jupiter.api.Tag("slow-fault")
  @org.junit.jupiter.api.DisplayName("17 a reclaim blocked by a finalizer; a volume restored at the last second of its grace")
  void aReclaimBlockedByAFinalizerAndARestoreAtTheLastSecond(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String pool = manualPool("fault-17");
    String held = volumeWithClaim("fault-17-held", pool);
    String raced = volumeWithClaim("fault-17-raced", pool);
    holdClaim(held, true);
    assertThat(send("DELETE", "/api/v1/volumes/" + held, null, demo, Map.of()).status()).isEqualTo(202);
    Answer deleted = send("DELETE", "/api/v1/volumes/" + raced, null, demo, Map.of());
    assertThat(deleted.status()).isEqualTo(202);
    Instant reclaimAfter = Instant.parse(deleted.body().path("reclaim_after").asText());
    Thread.sleep(Math.max(0, Duration.between(Instant.now(), reclaimAfter.minusSeconds(1)).toMillis()));
    Answer restore = send("POST", "/api/v1/volumes/" + raced + "/restore", null, demo, Map.of());
    assertThat(restore.status()).as(restore.body().toString()).isIn(200, 409);

    // The held claim is being deleted and waits on the finalizer; the volume is not reclaimed meanwhile.
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
        assertThat(claims(held)).as("the reclaim deletes the held claim")
            .anyMatch(c -> c.getMetadata().getDeletionTimestamp() != null));
    Thread.sleep(10_000);
    // Past its grace (deleted: no longer restorable), not reclaimed while its claim exists.
    assertThat(volumeStatus(held)).isEqualTo("deleted");
    holdClaim(held, false);
    Instant released = Instant.now();
    awaitReclaimed(held, Duration.ofMinutes(4));

    if (restore.status() == 200) {
      Thread.sleep(5_000);
      assertThat(volumeStatus(raced)).isNotIn("deleting", "deleted", "reclaimed");
      assertThat(claims(raced)).hasSize(1).allMatch(c -> c.getMetadata().getDeletionTimestamp() == null);
      send("DELETE", "/api/v1/volumes/" + raced, null, demo, Map.of());
    } else {
      awaitReclaimed(raced, Duration.ofMinutes(2));
    }
    note = "the held reclaim finished " + Duration.between(released, Instant.now()).toSeconds()
        + " s after the finalizer went; the restore 1 s before the end was " + (restore.status() == 200
        ? "taken and the volume kept its claim" : "refused 409 and the volume reclaimed");
    endScenario(info, started, released);
  }

  /** A volume of the demo user with a claim on the cluster: a session mounted it and ended. */
  private String volumeWithClaim(String name, String pool) throws Exception {
    Answer volume = send("POST", "/api/v1/volumes", "{\"name\":\"" + name + "\",\"size_gb\":1,\"pool_id\":\"" + pool
        + "\"}", demo, Map.of());
    assertThat(volume.status()).as(volume.body().toString()).isEqualTo(201);
    String id = volume.body().path("id").asText();
    String offering = catalogue.offerings().stream().filter(o -> "fractional".equals(o.mode())).findFirst().orElseThrow()
        .id();
    Answer session = send("POST", "/api/v1/sessions", "{\"offering_id\":\"" + offering + "\",\"image_id\":\""
        + catalogue.imageId() + "\",\"volume_id\":\"" + id + "\",\"name\":\"" + name + "\"}", demo, Map.of());
    assertThat(session.status()).as(session.body().toString()).isEqualTo(202);
    String sessionId = session.body().at("/session/id").asText();
    assertThat(awaitState(sessionId, List.of("running"), Duration.ofMinutes(2))).isEqualTo("running");
    terminate(sessionId);
    assertThat(claims(id)).hasSize(1);
    return id;
  }

  private List<io.fabric8.kubernetes.api.model.PersistentVolumeClaim> claims(String volume) {
    try (KubernetesClient kube = kube()) {
      return kube.persistentVolumeClaims().inAnyNamespace().withLabel(LabelKeys.VOLUME_ID, volume).list().getItems();
    }
  }

  private String volumeStatus(String volume) throws Exception {
    return send("GET", "/api/v1/volumes/" + volume, null, admin, Map.of()).body().path("status").asText();
  }

  /** A storage pool on the suite's cluster with a capacity set by hand (the CSI capacity needs a volume sync first). */
  private String manualPool(String name) throws Exception {
    Answer pool = send("POST", "/api/v1/storage/pools", "{\"name\":\"" + name + "\",\"cluster_id\":\""
        + runtime.clusters().get(0).id() + "\",\"storage_class\":\"gshare-data\",\"scope\":\"all\","
        + "\"capacity_source\":\"manual\",\"manual_capacity_gb\":100}", admin, Map.of());
    assertThat(pool.status()).as(pool.body().toString()).isEqualTo(201);
    return pool.body().path("id").asText();
  }

  /** Adds (or takes away) a finalizer of another controller on the volume's one claim, as a backup tool would. */
  private void holdClaim(String volume, boolean held) {
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
  private void awaitReclaimed(String volume, Duration within) {
    await().atMost(within).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(volumeStatus(volume)).isEqualTo("reclaimed"));
    assertThat(claims(volume)).isEmpty();
  }

  private static void signal(long pid, String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
    assertThat(kill.waitFor()).as("kill -" + signal + " " + pid).isZero();
  }

  /**
   * PostgreSQL stops and starts again (5 s down) while sessions are being placed, and again as the metering sweep
   * fires at the top of a minute. Requests meanwhile wait for a connection or answer 503 database_unavailable; every
   * accepted session ends up running; the sweep's retried activities charge each minute once.
   */
  @Test
  @org.junit.jupiter.api.Tag("slow-fault")
  @org.junit.jupiter.api.DisplayName("4 PostgreSQL restarted during placement and during metering")
  void postgresRestartedDuringPlacementAndMetering(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String metered = startSession("fault-4-metered");
    ExecutorService creates = Executors.newFixedThreadPool(3);
    List<Future<Answer>> placing = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      int n = i;
      placing.add(creates.submit(() -> requestSession("fault-4-placed-" + n, "fractional", demo)));
    }
    runtime.restartPostgres(Duration.ofSeconds(5));
    List<String> placed = new ArrayList<>();
    Map<Integer, Long> statuses = new TreeMap<>();
    for (Future<Answer> answer : placing) {
      Answer a = answer.get();
      statuses.merge(a.status(), 1L, Long::sum);
      assertThat(a.status()).as(a.body().toString()).isIn(202, 409, 503);
      if (a.status() == 202) {
        placed.add(a.body().at("/session/id").asText());
      } else {
        assertThat(a.contentType()).startsWith("application/problem+json");
      }
    }
    creates.shutdown();
    // While the database is down a second time, at the top of the minute: the metering sweep is firing.
    Instant nextMinute = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MINUTES).plusSeconds(60);
    Thread.sleep(Math.max(0, Duration.between(Instant.now(), nextMinute).toMillis()));
    runtime.restartPostgres(Duration.ofSeconds(5));
    Instant restarted = Instant.now();
    for (String id : placed) {
      assertThat(awaitState(id, List.of("running", "failed"), Duration.ofMinutes(3))).as(id).isEqualTo("running");
    }
    assertThat(awaitState(metered, List.of("running"), Duration.ofSeconds(30))).isEqualTo("running");
    // The sweep after the restart books the minutes the interrupted one did not, once each.
    Thread.sleep(Math.max(0, Duration.between(Instant.now(), restarted.plusSeconds(70)).toMillis()));
    note = "creates answered " + statuses + "; " + placed.size() + " placed and running";
    endScenario(info, started, restarted);
    for (String id : placed) {
      terminate(id);
    }
    terminate(metered);
  }

  /**
   * The cluster's apiserver answers a session's writes with 500, 503 and 429, and times out after applying one (504
   * Timeout, the write kept); its reads with 503, 500 and 410 Gone while the worker reports (scenario 7: the worker
   * watches nothing, it lists every interval, so a 410 costs one report). Retries with deterministic names and
   * server-side apply make the repeated writes land once: the session runs with one pod, Service and Ingress, and a
   * failed list is not taken for an empty one.
   */
  @Test
  @org.junit.jupiter.api.DisplayName("6 the apiserver answering 500, 503, 429 and timing out after a write")
  void theApiserverFailingAndTimingOutAfterAWrite(TestInfo info) throws Exception {
    Instant started = Instant.now();
    ApiFaultQueue faults = runtime.clusters().get(0).kube().apiFaults();
    String sessions = "/api/v1/namespaces/" + KubeNames.SESSIONS_NAMESPACE + "/";
    faults.inject(List.of(
        new ApiFault("PATCH", sessions, ApiFaultKind.INTERNAL_ERROR),
        new ApiFault("PATCH", sessions, ApiFaultKind.UNAVAILABLE),
        new ApiFault("PATCH", sessions, ApiFaultKind.TOO_MANY_REQUESTS),
        new ApiFault("PATCH", sessions, ApiFaultKind.TIMEOUT_AFTER_WRITE),
        new ApiFault("PATCH", sessions, ApiFaultKind.TIMEOUT_AFTER_WRITE),
        new ApiFault("GET", sessions + "pods", ApiFaultKind.UNAVAILABLE),
        new ApiFault("GET", sessions + "pods", ApiFaultKind.INTERNAL_ERROR),
        new ApiFault("GET", sessions + "pods", ApiFaultKind.GONE)));
    String session;
    try {
      session = createSession("fault-6", "fractional", demo);
      assertThat(awaitState(session, List.of("running", "failed"), Duration.ofMinutes(3))).isEqualTo("running");
      await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
          assertThat(faults.pending()).as("faults no request met").isEmpty());
    } finally {
      faults.clear();
    }
    try (KubernetesClient kube = kube()) {
      assertThat(kube.pods().inNamespace(KubeNames.SESSIONS_NAMESPACE).withLabel(LabelKeys.SESSION_ID, session)
          .list().getItems()).hasSize(1);
    }
    Thread.sleep(5_000);
    assertThat(send("GET", "/api/v1/sessions/" + session, null, demo, Map.of()).body().at("/session/state").asText())
        .as("a failed list is not an empty one").isEqualTo("running");
    note = faults.answered().size() + " apiserver faults answered; the session ran with one pod";
    endScenario(info, started, Instant.now());
    terminate(session);
  }

  /**
   * The session activity that waits for a pod to run watches it (the reports list, they do not watch). Its watches
   * are answered 410 Gone, dropped at once (the stream ends with no event) and refused 500: each costs a read and a
   * new watch, the session runs. KWOK runs a pod within a second, before anyone needs to watch, so the A100 node's
   * kubelet is silent ({@code dropNode}) until the faults are met: the pod waits bound, as on a slow node.
   */
  @Test
  @org.junit.jupiter.api.DisplayName("7 a pod watch dropped, refused 500 and answered 410 Gone while a session starts")
  void aWatchDroppedAndA410Gone(TestInfo info) throws Exception {
    Instant started = Instant.now();
    KubeCluster kube = runtime.clusters().get(0).kube();
    ApiFaultQueue faults = kube.apiFaults();
    String pods = "/api/v1/namespaces/" + KubeNames.SESSIONS_NAMESPACE + "/pods";
    String watch = ApiFault.WATCH;
    int answeredBefore = faults.answered().size();
    faults.inject(List.of(
        new ApiFault(watch, pods, ApiFaultKind.DROPPED),
        new ApiFault(watch, pods, ApiFaultKind.INTERNAL_ERROR),
        new ApiFault(watch, pods, ApiFaultKind.GONE)));
    String session;
    kube.dropNode("sim-a100-0");
    try {
      session = createSession("fault-7", "fractional", demo);
      await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
          assertThat(faults.pending()).as("watch faults not met").isEmpty());
      kube.restoreNode("sim-a100-0");
      assertThat(awaitState(session, List.of("running", "failed"), Duration.ofMinutes(3))).isEqualTo("running");
    } finally {
      kube.restoreNode("sim-a100-0");
      faults.clear();
    }
    List<ApiFault> met = faults.answered().subList(answeredBefore, faults.answered().size());
    assertThat(met).as("watch faults met").isNotEmpty();
    note = met.size() + " pod watches failed (" + met.stream().map(f -> f.kind().name()).collect(java.util.stream.Collectors.joining(", ")) + "); the session ran";
    endScenario(info, started, Instant.now());
    terminate(session);
  }

  @Test
  @org.junit.jupiter.api.DisplayName("9 duplicated, reordered and replayed /internal reports; a report from before a restart")
  void duplicatedReorderedAndReplayedReports(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String session = startSession("fault-9");
    String operator = operatorToken();
    String cluster = runtime.clusters().get(0).id();
    // The inventory as the worker last sent it, rebuilt from the database, sent 20 times at once.
    JsonNode nodes = send("GET", "/api/v1/nodes?cluster_id=" + cluster, null, admin, Map.of()).body().path("items");
    com.fasterxml.jackson.databind.node.ObjectNode inventory = JSON.createObjectNode().put("cluster_id", cluster);
    com.fasterxml.jackson.databind.node.ArrayNode reported = inventory.putArray("nodes");
    for (JsonNode node : nodes) {
      com.fasterxml.jackson.databind.node.ObjectNode n = reported.addObject().put("hostname", node.path("hostname").asText())
          .put("ready", true).put("schedulable", node.path("schedulable").asBoolean())
          .put("gpu_mode", node.path("gpu_mode").asText()).put("lossless_pause", node.path("lossless_pause").asBoolean());
      n.set("labels", node.path("labels"));
      n.set("capacity", node.path("capacity"));
      com.fasterxml.jackson.databind.node.ArrayNode gpus = n.putArray("gpus");
      for (JsonNode gpu : node.path("gpus")) {
        gpus.addObject().put("uuid", gpu.path("uuid").asText()).put("index", gpu.path("index").asInt())
            .put("model", gpu.path("model").asText()).put("memory_mib", gpu.path("memory_mib").asLong())
            .put("cores_percent", gpu.path("cores_percent").asInt()).put("split_count", gpu.path("split_count").asInt())
            .put("healthy", gpu.path("healthy").asBoolean());
      }
    }
    List<Answer> duplicated = parallel(20, 8, i -> send("POST", "/internal/v1/inventory", inventory.toString(),
        operator, Map.of()));
    assertThat(duplicated).extracting(Answer::status).allMatch(s -> s >= 200 && s < 300);
    // A complete status report from before the session existed, replayed and out of order with the worker's own.
    String stale = "{\"sessions\":[],\"complete\":true}";
    List<Answer> replayed = parallel(10, 4, i -> send("POST", "/internal/v1/sessions/status", stale, operator, Map.of()));
    assertThat(replayed).extracting(Answer::status).allMatch(s -> s >= 200 && s < 300);
    // The workflow checks with the cluster before it acts on a missing pod: the session still runs.
    Thread.sleep(5_000);
    assertThat(send("GET", "/api/v1/sessions/" + session, null, demo, Map.of()).body().at("/session/state").asText())
        .isEqualTo("running");
    endScenario(info, started, started.plusSeconds(5));
    terminate(session);
  }

  @Test
  @org.junit.jupiter.api.DisplayName("1 cluster-worker SIGKILL while a session is being created")
  void theClusterWorkerKilledWhileASessionIsCreated(TestInfo info) throws Exception {
    Instant started = Instant.now();
    long worker = workerPid();
    String session = createSession("fault-1", "fractional", demo);
    // SIGKILL: no shutdown hook, no finished activity; the process is restarted as a Deployment restarts its pod.
    assertThat(ProcessHandle.of(worker).map(ProcessHandle::destroyForcibly).orElse(false)).isTrue();
    assertThat(awaitState(session, List.of("running", "failed"), Duration.ofMinutes(3))).isEqualTo("running");
    long restarted = workerPid();
    assertThat(restarted).isNotEqualTo(worker);
    // "Mid workflow task" cannot happen to the cluster-worker: it polls its queue for activities only (the workflows
    // run in the api, whose kill mid workflow task is scenario 3's).
    assertThat(pollers(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW)).as("workflow pollers of the worker's queue").isZero();
    assertThat(pollers(TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)).as("activity pollers of the worker's queue").isPositive();
    note = "the create's activities retried on the restarted worker (pid " + worker + " -> " + restarted
        + "); its queue has no workflow pollers";
    endScenario(info, started, started);
    terminate(session);
  }

  /** How many pollers of {@code type} the suite cluster's worker queue has. */
  private int pollers(TaskQueueType type) {
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
  private long workerPid() throws Exception {
    String queue = "gshare-cluster-" + runtime.clusters().get(0).id();
    Instant deadline = Instant.now().plusSeconds(60);
    while (Instant.now().isBefore(deadline)) {
      for (JsonNode q : send("GET", "/api/v1/system", null, admin, Map.of()).body().path("task_queues")) {
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

  @Test
  @org.junit.jupiter.api.DisplayName("19 every token flaw on every /api and /internal path; the BOLA sweep")
  void everyTokenFlawOnEveryPathAndUserAsObjectsWithUserBsToken(TestInfo info) throws Exception {
    Instant started = Instant.now();
    JsonNode doc = send("GET", "/api/v1/openapi", null, admin, Map.of()).body();
    TokenForgery users = TokenForgery.of(demo, runtime.dataDir().resolve("keys").resolve("user-signing.jwks.json"));
    TokenForgery operators = TokenForgery.of(operatorToken(),
        runtime.dataDir().resolve("keys").resolve("internal-signing.jwks.json"));
    // The forgery itself is sound: re-signed unchanged, each token still works, so each flaw alone is refused.
    assertThat(send("GET", "/api/v1/users/me", null, users.resigned(), Map.of()).status()).isEqualTo(200);
    assertThat(send("POST", "/internal/v1/sessions/status", "{\"sessions\":[],\"complete\":false}",
        operators.resigned(), Map.of()).status()).isBetween(200, 299);

    List<String> broken = new ArrayList<>();
    int calls = 0;
    for (var path : iterable(doc.path("paths").fields())) {
      for (var operation : iterable(path.getValue().fields())) {
        JsonNode security = operation.getValue().path("security");
        if (security.isArray() && security.isEmpty()) {
          continue; // an open path (healthz, JWKS, the sign-in pages, the ingress's verdicts)
        }
        String method = operation.getKey().toUpperCase(java.util.Locale.ROOT);
        String concrete = path.getKey().replaceAll("\\{[^}]+}", "nonexistent_0000");
        String body = operation.getValue().has("requestBody") ? "{}" : null;
        TokenForgery forgery = path.getKey().startsWith("/internal/") ? operators : users;
        for (Map.Entry<String, String> flaw : forgery.flawed().entrySet()) {
          Answer answer = send(method, concrete, body, flaw.getValue(), Map.of());
          calls++;
          if (answer.status() != 401 || !answer.contentType().startsWith("application/problem+json")) {
            broken.add(method + " " + path.getKey() + " with " + flaw.getKey() + ": " + answer.status());
          }
        }
      }
    }
    assertThat(calls).isGreaterThan(500);
    assertThat(broken).as("token flaws not refused with 401 problem+json").isEmpty();

    // BOLA: user B names user A's objects on every path that takes an id; nothing answers 2xx, nothing changes.
    String sessionOfA = startSession("fault-19");
    String userOfA = catalogue.demoUserId();
    Answer userB = send("POST", "/api/v1/users", "{\"email\":\"b-" + System.nanoTime() + "@example.com\"}", admin,
        Map.of());
    assertThat(userB.status()).as(userB.body().toString()).isEqualTo(201);
    String tokenOfB = send("POST", "/api/v1/users/" + userB.body().path("id").asText() + "/tokens",
        "{\"name\":\"bola\"}", admin, Map.of()).body().path("token").asText();
    Map<String, String> idsOfA = Map.of("sessions", sessionOfA, "users", userOfA, "operations", "session-" + sessionOfA,
        "credits", userOfA);
    List<String> leaked = new ArrayList<>();
    for (var path : iterable(doc.path("paths").fields())) {
      if (!path.getKey().startsWith("/api/") || !path.getKey().contains("{")) {
        continue;
      }
      String resource = path.getKey().split("/")[3];
      String concrete = path.getKey().replaceFirst("\\{[^}]+}", idsOfA.getOrDefault(resource, "nonexistent_0000"))
          .replaceAll("\\{[^}]+}", "nonexistent_0000");
      for (var operation : iterable(path.getValue().fields())) {
        String method = operation.getKey().toUpperCase(java.util.Locale.ROOT);
        String body = operation.getValue().has("requestBody") ? "{}" : null;
        Answer answer = send(method, concrete, body, tokenOfB, Map.of());
        if (answer.status() < 400 || answer.status() >= 500) {
          leaked.add(method + " " + concrete + ": " + answer.status());
        }
      }
    }
    assertThat(leaked).as("user A's objects answered to user B").isEmpty();
    assertThat(send("GET", "/api/v1/sessions/" + sessionOfA, null, demo, Map.of()).body().at("/session/state").asText())
        .isEqualTo("running");
    endScenario(info, started, started);
    terminate(sessionOfA);
  }

  private static <T> Iterable<T> iterable(java.util.Iterator<T> iterator) {
    return () -> iterator;
  }

  @Test
  @org.junit.jupiter.api.DisplayName("3 the api killed mid-drain with creates in flight; restarted as a Deployment would")
  void theApiKilledMidDrainWithCreatesInFlight(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String session = startSession("fault-3-running");
    String node = send("GET", "/api/v1/sessions/" + session, null, admin, Map.of()).body().at("/session/node_id").asText();
    Answer drain = send("POST", "/api/v1/nodes/" + node + "/drain", "{\"mode\":\"pause\",\"reason\":\"fault 3\"}",
        admin, Map.of());
    assertThat(drain.status()).as(drain.body().toString()).isEqualTo(202);
    ExecutorService pool = Executors.newFixedThreadPool(6);
    List<Future<String>> creates = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      int n = i;
      creates.add(pool.submit(() -> {
        try {
          Answer created = requestSession("fault-3-" + n, "exclusive", demo);
          return created.status() == 202 ? created.body().at("/session/id").asText() : "refused " + created.status();
        } catch (java.io.IOException cut) {
          return "cut off";
        }
      }));
    }
    // Some creates are answered, some are cut off mid-request (their row written or not, their workflow started or
    // not): whichever, each must end.
    Thread.sleep(40);
    runtime.killApi();
    Instant killed = Instant.now();
    runtime.awaitApiRestarted(Duration.ofMinutes(4));
    List<String> outcomes = new ArrayList<>();
    for (Future<String> create : creates) {
      outcomes.add(create.get());
    }
    pool.shutdown();
    // The drain's workflow went on in Temporal and finishes with the new api.
    assertThat(awaitOperation(drain.body().at("/operation/id").asText(), Duration.ofMinutes(3))).isEqualTo("completed");
    assertThat(awaitState(session, List.of("paused"), Duration.ofMinutes(2))).isEqualTo("paused");
    // Whatever the cut-off creates left behind ends: the invariants below find no session still pending.
    note = "creates: " + outcomes;
    endScenario(info, started, killed);
    Answer uncordon = send("POST", "/api/v1/nodes/" + node + "/uncordon", null, admin, Map.of());
    assertThat(awaitOperation(uncordon.body().at("/operation/id").asText(), Duration.ofMinutes(2))).isEqualTo("completed");
    awaitSchedulable(node);
    terminate(session);
    for (String outcome : outcomes) {
      if (outcome.startsWith("ses_")) {
        terminate(outcome);
      }
    }
  }

  /**
   * The api SIGKILLed while it attaches a new cluster: once the attach's workflow has reached the cluster's apiserver
   * and before it deploys the worker. The workflow goes on with the restarted api (its steps are idempotent applies)
   * and the cluster ends connected, its worker reporting with the token in its Secret; it is detached again after.
   */
  @Test
  @org.junit.jupiter.api.Tag("slow-fault")
  @org.junit.jupiter.api.DisplayName("3 the api killed mid-attach")
  void theApiKilledMidAttach(TestInfo info) throws Exception {
    Instant started = Instant.now();
    try (KubeCluster sim = KubeCluster.start(io.gshare.sim.SimSeed.defaultSeed(),
        KubeCluster.Options.defaults().withName("fault-3-attach"))) {
      String kubeconfig = Files.readString(sim.writeKubeconfig(dataDir.resolve("fault-3-attach.kubeconfig")));
      Answer registered = send("POST", "/api/v1/clusters", JSON.writeValueAsString(Map.of("name", "fault-3-attach",
          "kubeconfig", kubeconfig)), admin, Map.of());
      assertThat(registered.status()).as(registered.body().toString()).isEqualTo(202);
      String cluster = registered.body().at("/cluster/id").asText();
      String operation = registered.body().at("/operation/id").asText();
      // Past "reach the apiserver", before "deploy the cluster-worker".
      String stepAtKill = null;
      Instant deadline = Instant.now().plusSeconds(60);
      while (stepAtKill == null && Instant.now().isBefore(deadline)) {
        JsonNode steps = send("GET", "/api/v1/operations/" + operation, null, admin, Map.of()).body().path("steps");
        if ("done".equals(steps.path(0).path("status").asText())) {
          for (JsonNode step : steps) {
            if (!"done".equals(step.path("status").asText())) {
              stepAtKill = step.path("name").asText();
              break;
            }
          }
        }
        Thread.sleep(stepAtKill == null ? 50 : 0);
      }
      assertThat(stepAtKill).as("the attach reached its cluster").isNotNull();
      runtime.killApi();
      Instant killed = Instant.now();
      runtime.awaitApiRestarted(Duration.ofMinutes(4));
      String status = awaitOperation(operation, Duration.ofMinutes(5));
      assertThat(status).as(send("GET", "/api/v1/operations/" + operation, null, admin, Map.of()).body().toString())
          .isEqualTo("completed");
      assertThat(send("GET", "/api/v1/clusters/" + cluster, null, admin, Map.of()).body().path("status").asText())
          .isEqualTo("connected");
      try (KubernetesClient kube = sim.newClient()) {
        assertThat(kube.secrets().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.TOKEN_SECRET).get()).isNotNull();
      }
      note = "killed at \"" + stepAtKill + "\"; the attach completed " + Duration.between(killed, Instant.now()).toSeconds()
          + " s later with the restarted api";
      endScenario(info, started, killed);
      Answer detach = send("DELETE", "/api/v1/clusters/" + cluster, null, admin, Map.of());
      assertThat(detach.status()).as(detach.body().toString()).isEqualTo(202);
      assertThat(awaitOperation(detach.body().at("/operation/id").asText(), Duration.ofMinutes(3))).isEqualTo("completed");
    }
  }

  /**
   * The api SIGKILLed right after an operator-token rotation starts, and again as a deleted volume's grace ends and
   * its reclaim begins. Both are workflows: each goes on with the restarted api, the worker ends up on the new token,
   * the volume reclaimed and its claim gone.
   */
  @Test
  @org.junit.jupiter.api.Tag("slow-fault")
  @org.junit.jupiter.api.DisplayName("3 the api killed mid-rotation and mid-reclaim")
  void theApiKilledMidRotationAndMidReclaim(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String cluster = runtime.clusters().get(0).id();
    String volume = volumeWithClaim("fault-3-volume", manualPool("fault-3-pool"));
    Answer deleted = send("DELETE", "/api/v1/volumes/" + volume, null, demo, Map.of());
    assertThat(deleted.status()).isEqualTo(202);
    Instant reclaimAfter = Instant.parse(deleted.body().path("reclaim_after").asText());

    Answer rotation = send("POST", "/api/v1/clusters/" + cluster + "/rotate-token", null, admin, Map.of());
    assertThat(rotation.status()).as(rotation.body().toString()).isEqualTo(202);
    runtime.killApi();
    runtime.awaitApiRestarted(Duration.ofMinutes(4));
    Thread.sleep(Math.max(0, Duration.between(Instant.now(), reclaimAfter.plusMillis(500)).toMillis()));
    runtime.killApi();
    Instant killed = Instant.now();
    runtime.awaitApiRestarted(Duration.ofMinutes(4));

    assertThat(awaitOperation(rotation.body().at("/operation/id").asText(), Duration.ofMinutes(3)))
        .as("the rotation after two api restarts").isEqualTo("completed");
    awaitReclaimed(volume, Duration.ofMinutes(3));
    note = "the rotation completed and the volume was reclaimed across two api restarts";
    endScenario(info, started, killed);
  }

  @Test
  @org.junit.jupiter.api.DisplayName("5 the Temporal server restarted, its database kept, while sessions run and start")
  void theTemporalServerRestartedWithItsDatabaseKept(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String running = startSession("fault-5-running");
    String starting = createSession("fault-5-starting", "fractional", demo);
    runtime.restartTemporal();
    Instant restarted = Instant.now();
    // The workflows and their timers are where they were: the new session runs, the running one pauses on request.
    assertThat(awaitState(starting, List.of("running", "failed"), Duration.ofMinutes(3))).isEqualTo("running");
    Answer pause = null;
    Instant deadline = Instant.now().plus(Duration.ofMinutes(1));
    while (Instant.now().isBefore(deadline)) {
      pause = send("POST", "/api/v1/sessions/" + running + "/pause", null, demo, Map.of());
      if (pause.status() != 503) {
        break;
      }
      // While the api's client reconnects it answers 503 temporal_unavailable, in words; the caller retries.
      assertThat(pause.body().path("code").asText()).isEqualTo("temporal_unavailable");
      Thread.sleep(1_000);
    }
    assertThat(pause.status()).as(pause.body().toString()).isEqualTo(200);
    assertThat(pause.body().at("/session/state").asText()).isEqualTo("paused");
    note = "a session created before the restart runs; one running pauses after it";
    endScenario(info, started, restarted);
    terminate(running);
    terminate(starting);
  }

  @Test
  @org.junit.jupiter.api.DisplayName("15 a node dropped while its sessions start; restored with the same hostname")
  void aNodeDroppedWhileItsSessionsStartAndRestored(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String node = "sim-a100-0";
    KubeCluster kube = runtime.clusters().get(0).kube();
    awaitSchedulable(nodeIdOf(node));
    List<String> sessions = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      sessions.add(createSession("fault-15-" + i, "fractional", demo));
    }
    kube.dropNode(node);
    Instant dropped = Instant.now();
    // The real node lifecycle controller sees the silent kubelet and marks the node unreachable.
    await().atMost(LocalKubernetes.NODE_MONITOR_GRACE.plusSeconds(30)).pollInterval(Duration.ofSeconds(1))
        .untilAsserted(() -> assertThat(readyCondition(node)).isEqualTo("Unknown"));
    Duration unreachableAfter = Duration.between(dropped, Instant.now());
    // While its kubelet is silent, nothing runs there.
    for (String session : sessions) {
      assertThat(send("GET", "/api/v1/sessions/" + session, null, demo, Map.of()).body().at("/session/state").asText())
          .isNotEqualTo("running");
    }
    kube.restoreNode(node);
    Instant restored = Instant.now();
    List<String> ends = new ArrayList<>();
    for (String session : sessions) {
      ends.add(awaitState(session, List.of("running", "paused", "failed"), Duration.ofMinutes(3)));
    }
    assertThat(ends).allMatch(List.of("running", "paused", "failed")::contains);
    // The node came back as itself: one row for the hostname, ready again.
    JsonNode nodes = send("GET", "/api/v1/nodes?cluster_id=" + runtime.clusters().get(0).id(), null, admin, Map.of())
        .body().path("items");
    assertThat(nodes.findValuesAsText("hostname").stream().filter(node::equals)).hasSize(1);
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1))
        .untilAsserted(() -> assertThat(readyCondition(node)).isEqualTo("True"));
    note = "unreachable after " + unreachableAfter.toSeconds() + " s; sessions " + ends;
    endScenario(info, started, restored);
    for (String session : sessions) {
      terminate(session);
    }
  }

  /**
   * Three parties pause one session at once: a node drain, its user, and the idle reaper. The reaper's part is the
   * signal its sweep sends a session it found idle past its policy's timeout ({@code IdleReaperWorkflowImpl}),
   * sent here as the sweep sends it: the sweep's decision needs minutes of idle samples and is
   * {@code IdleSessionsTest}'s.
   */
  @Test
  @org.junit.jupiter.api.DisplayName("16 a drain racing a user's pause and the idle reaper's pause on the same session")
  void aDrainRacingAUsersPauseAndTheReapers(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String session = startSession("fault-16");
    String node = send("GET", "/api/v1/sessions/" + session, null, admin, Map.of()).body().at("/session/node_id").asText();
    WorkflowServiceStubs temporal = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
        .setTarget(runtime.temporalAddress()).build());
    List<Answer> answers;
    try {
      SessionWorkflow reaper = WorkflowClient.newInstance(temporal)
          .newWorkflowStub(SessionWorkflow.class, WorkflowIds.session(session));
      answers = parallel(3, 3, i -> switch (i) {
        case 0 -> send("POST", "/api/v1/nodes/" + node + "/drain", "{\"mode\":\"pause\",\"reason\":\"fault 16\"}", admin,
            Map.of());
        case 1 -> send("POST", "/api/v1/sessions/" + session + "/pause", null, demo, Map.of());
        default -> {
          reaper.idle("idle for 30 minutes by hami (fault 16)");
          yield new Answer(0, JSON.createObjectNode(), "", null);
        }
      });
    } finally {
      temporal.shutdown();
    }
    Instant raced = Instant.now();
    assertThat(answers).extracting(Answer::status).allMatch(s -> s < 500);
    assertThat(answers.get(0).status()).as(answers.get(0).body().toString()).isEqualTo(202);
    String drain = answers.get(0).body().at("/operation/id").asText();
    String status = awaitOperation(drain, Duration.ofMinutes(3));
    assertThat(status).isEqualTo("completed");
    // Both wanted it paused: it is, once, and billed once.
    assertThat(awaitState(session, List.of("paused"), Duration.ofMinutes(2))).isEqualTo("paused");
    // Paused once: one run billed, its window closed (a pause, resume and pause again would show two).
    assertThat(billingWindows(session)).as("billing windows (all, open) of " + session).containsExactly(1L, 0L);
    note = "user's pause " + answers.get(1).status() + ", drain " + status + ", reaper's signal delivered; paused once";
    endScenario(info, started, raced);
    Answer uncordon = send("POST", "/api/v1/nodes/" + node + "/uncordon", null, admin, Map.of());
    assertThat(awaitOperation(uncordon.body().at("/operation/id").asText(), Duration.ofMinutes(2))).isEqualTo("completed");
    awaitSchedulable(node);
    terminate(session);
  }

  @Test
  @org.junit.jupiter.api.Tag("slow-fault")
  @org.junit.jupiter.api.DisplayName("12 credits running out mid-session; a grant arriving during the pause")
  void creditsRunningOutMidSessionAndAGrantDuringThePause(TestInfo info) throws Exception {
    Instant started = Instant.now();
    Answer user = send("POST", "/api/v1/users", "{\"email\":\"poor-" + System.nanoTime() + "@example.com\"}", admin,
        Map.of());
    String userId = user.body().path("id").asText();
    String token = send("POST", "/api/v1/users/" + userId + "/tokens", "{\"name\":\"fault-12\"}", admin, Map.of())
        .body().path("token").asText();
    java.math.BigDecimal perMinute = DemoCatalogue.FRACTIONAL_PRICE_PER_HOUR.divide(java.math.BigDecimal.valueOf(60), 6,
        java.math.RoundingMode.HALF_UP);
    // Two minutes' worth.
    grant(userId, perMinute.multiply(java.math.BigDecimal.valueOf(2)).add(new java.math.BigDecimal("0.001")), "fault-12-a");
    String session = createSession("fault-12", "fractional", token);
    assertThat(awaitState(session, List.of("running"), Duration.ofMinutes(2))).isEqualTo("running");
    // The metering sweep runs every minute: within a few, the balance cannot pay the next minute and it pauses.
    assertThat(awaitState(session, List.of("paused"), Duration.ofMinutes(5))).isEqualTo("paused");
    Instant paused = Instant.now();
    java.math.BigDecimal balance = balance(userId).value();
    assertThat(balance).as("at most one minute below zero").isGreaterThanOrEqualTo(perMinute.negate());
    // A grant during the pause: the user resumes and it runs again.
    grant(userId, java.math.BigDecimal.ONE, "fault-12-b");
    Answer resumed = send("POST", "/api/v1/sessions/" + session + "/resume", null, token, Map.of());
    assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
    assertThat(awaitState(session, List.of("running"), Duration.ofMinutes(2))).isEqualTo("running");
    note = "paused at balance " + balance + ", resumed after the grant";
    endScenario(info, started, paused);
    send("DELETE", "/api/v1/sessions/" + session, null, token, Map.of());
    awaitState(session, List.of("terminated", "failed"), Duration.ofMinutes(2));
  }

  private void grant(String userId, java.math.BigDecimal amount, String key) throws Exception {
    Answer granted = send("POST", "/api/v1/credits/grants", "{\"user_id\":\"" + userId + "\",\"amount\":"
        + amount.toPlainString() + ",\"idempotency_key\":\"" + key + "-" + userId + "\"}", admin, Map.of());
    assertThat(granted.status()).as(granted.body().toString()).isIn(200, 201);
  }

  /** The status of the node's Ready condition, as the node lifecycle controller and KWOK write it. */
  private String readyCondition(String hostname) {
    try (KubernetesClient kube = kube()) {
      return kube.nodes().withName(hostname).get().getStatus().getConditions().stream()
          .filter(c -> "Ready".equals(c.getType())).map(c -> c.getStatus()).findFirst().orElse(null);
    }
  }

  private String nodeIdOf(String hostname) throws Exception {
    for (JsonNode n : send("GET", "/api/v1/nodes", null, admin, Map.of()).body().path("items")) {
      if (n.path("hostname").asText().equals(hostname)) {
        return n.path("id").asText();
      }
    }
    throw new AssertionError("no node " + hostname);
  }

  /** Until the worker's inventory shows the node schedulable and undrained (an uncordon is seen at its next report). */
  private void awaitSchedulable(String nodeId) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(1));
    while (Instant.now().isBefore(deadline)) {
      for (JsonNode n : send("GET", "/api/v1/nodes", null, admin, Map.of()).body().path("items")) {
        if (n.path("id").asText().equals(nodeId) && n.path("schedulable").asBoolean()
            && (n.path("drain_state").isMissingNode() || n.path("drain_state").isNull())
            && "ready".equals(n.path("liveness").asText())) {
          return;
        }
      }
      Thread.sleep(500);
    }
    throw new AssertionError("node " + nodeId + " is not schedulable again within a minute");
  }

  private String awaitOperation(String id, Duration within) throws Exception {
    Instant deadline = Instant.now().plus(within);
    String status = null;
    while (Instant.now().isBefore(deadline)) {
      status = send("GET", "/api/v1/operations/" + id, null, admin, Map.of()).body().path("status").asText();
      if (!"running".equals(status)) {
        return status;
      }
      Thread.sleep(500);
    }
    return status;
  }

  /** The operator token of the cluster's worker, read from its Secret as the kubelet mounts it. */
  private String operatorToken() {
    try (KubernetesClient kube = kube()) {
      var secret = kube.secrets().inNamespace(io.gshare.activities.cluster.model.WorkerObjects.NAMESPACE)
          .withName(io.gshare.activities.cluster.model.WorkerObjects.TOKEN_SECRET).get();
      String key = io.gshare.activities.cluster.model.WorkerObjects.TOKEN_KEY;
      if (secret.getData() != null && secret.getData().containsKey(key)) {
        return new String(java.util.Base64.getDecoder().decode(secret.getData().get(key)),
            java.nio.charset.StandardCharsets.UTF_8).trim();
      }
      return secret.getStringData().get(key).trim();
    }
  }

  // ---------------------------------------------------------------------------------------------------------------

  record BigDecimalBalance(java.math.BigDecimal value) {}

  private BigDecimalBalance balance(String userId) throws Exception {
    return new BigDecimalBalance(send("GET", "/api/v1/credits?user_id=" + userId, null, admin, Map.of()).body()
        .path("balance").decimalValue());
  }

  /** Asks for a session of the demo catalogue's offering in {@code mode} (exclusive or fractional). */
  private Answer requestSession(String name, String mode, String token) throws Exception {
    return requestSession(name, mode, token, null);
  }

  /** @param volume the volume it mounts; null for none */
  private Answer requestSession(String name, String mode, String token, String volume) throws Exception {
    String offering = catalogue.offerings().stream().filter(o -> mode.equals(o.mode())).findFirst().orElseThrow().id();
    return send("POST", "/api/v1/sessions", "{\"offering_id\":\"" + offering + "\",\"image_id\":\""
        + catalogue.imageId() + "\",\"name\":\"" + name + "\"" + (volume == null ? "" : ",\"volume_id\":\"" + volume + "\"")
        + "}", token, Map.of());
  }

  /** A session mounting {@code volume} accepted (202); its id. */
  private String createSession(String name, String mode, String token, String volume) throws Exception {
    Answer created = requestSession(name, mode, token, volume);
    assertThat(created.status()).as(created.body().toString()).isEqualTo(202);
    return created.body().at("/session/id").asText();
  }

  /** A session accepted (202); its id. */
  private String createSession(String name, String mode, String token) throws Exception {
    Answer created = requestSession(name, mode, token);
    assertThat(created.status()).as(created.body().toString()).isEqualTo(202);
    return created.body().at("/session/id").asText();
  }

  /** A fractional session of the demo user, running. */
  private String startSession(String name) throws Exception {
    String id = createSession(name, "fractional", demo);
    assertThat(awaitState(id, List.of("running"), Duration.ofMinutes(2))).isEqualTo("running");
    return id;
  }

  /** How many billing windows the session has, and how many of them are open. */
  private List<Long> billingWindows(String session) throws Exception {
    try (var db = java.sql.DriverManager.getConnection(runtime.dbUrl());
        var query = db.prepareStatement("select count(*), count(*) filter (where closed_at is null) from billing_windows"
            + " where session_id = ?")) {
      query.setString(1, session);
      try (var rs = query.executeQuery()) {
        rs.next();
        return List.of(rs.getLong(1), rs.getLong(2));
      }
    }
  }

  private void terminate(String session) throws Exception {
    send("DELETE", "/api/v1/sessions/" + session, null, demo, Map.of());
    awaitState(session, List.of("terminated", "failed"), Duration.ofMinutes(2));
  }

  private String awaitState(String session, List<String> states, Duration within) throws Exception {
    Instant deadline = Instant.now().plus(within);
    String state = null;
    while (Instant.now().isBefore(deadline)) {
      state = send("GET", "/api/v1/sessions/" + session, null, admin, Map.of()).body().at("/session/state").asText();
      if (states.contains(state)) {
        return state;
      }
      Thread.sleep(500);
    }
    return state;
  }

  private Answer send(String method, String path, String body, String token, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(runtime.apiUrl() + path))
        .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + token)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    headers.forEach(request::header);
    HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    JsonNode json = response.body().isBlank() ? JSON.nullNode() : JSON.readTree(response.body());
    return new Answer(response.statusCode(), json, response.headers().firstValue("Content-Type").orElse(""),
        response.headers().firstValue("Retry-After").orElse(null));
  }

  @FunctionalInterface
  private interface Call {
    Answer call(int i) throws Exception;
  }

  private static List<Answer> parallel(int count, int threads, Call call) throws Exception {
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
