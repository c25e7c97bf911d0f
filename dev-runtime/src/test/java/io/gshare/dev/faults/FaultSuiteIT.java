package io.gshare.dev.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.dev.DemoCatalogue;
import io.gshare.dev.DevRuntime;
import io.gshare.dev.TestRuntimes;
import io.gshare.workflows.kube.KubeNames;
import io.gshare.workflows.kube.LabelKeys;
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
 * parts (PostgreSQL, the Temporal dev server, the simulated cluster, the api and cluster-worker processes) and ends
 * by checking the four invariants ({@link Invariants}); a broken one fails the scenario with the rows that break
 * it. The fast scenarios run in {@code make test}; those tagged {@code slow-fault} under {@code make test-faults}.
 * The table of scenario, invariants held and time is printed at the end and written to
 * {@code target/fault-suite.txt}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FaultSuiteIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration SETTLE = Duration.ofSeconds(20);

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

  record Answer(int status, JsonNode body, String contentType) {}

  @BeforeAll
  void start() throws Exception {
    // A kept data directory: the Temporal server keeps its state in a file, so scenario 5 can restart it.
    dataDir = Files.createTempDirectory("gshare-faults-");
    runtime = TestRuntimes.start("fault-suite-logs", dataDir);
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
    try (KubernetesClient kube = runtime.clusters().get(0).simulator().newClient()) {
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
      try (KubernetesClient kube = runtime.clusters().get(0).simulator().newClient()) {
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
    endScenario(info, started, started);
    terminate(session);
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
    var simulator = runtime.clusters().get(0).simulator();
    awaitSchedulable(nodeIdOf(node));
    List<String> sessions = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      sessions.add(createSession("fault-15-" + i, "fractional", demo));
    }
    simulator.dropNode(node);
    Instant dropped = Instant.now();
    Thread.sleep(10_000);
    // While its kubelet is silent, nothing runs there.
    for (String session : sessions) {
      assertThat(send("GET", "/api/v1/sessions/" + session, null, demo, Map.of()).body().at("/session/state").asText())
          .isNotEqualTo("running");
    }
    simulator.restoreNode(node);
    List<String> ends = new ArrayList<>();
    for (String session : sessions) {
      ends.add(awaitState(session, List.of("running", "paused", "failed"), Duration.ofMinutes(3)));
    }
    assertThat(ends).allMatch(List.of("running", "paused", "failed")::contains);
    // The node came back as itself: one row for the hostname, ready again.
    JsonNode nodes = send("GET", "/api/v1/nodes?cluster_id=" + runtime.clusters().get(0).id(), null, admin, Map.of())
        .body().path("items");
    assertThat(nodes.findValuesAsText("hostname").stream().filter(node::equals)).hasSize(1);
    note = "sessions " + ends;
    endScenario(info, started, dropped.plusSeconds(10));
    for (String session : sessions) {
      terminate(session);
    }
  }

  @Test
  @org.junit.jupiter.api.DisplayName("16 a drain racing a user's pause on the same session")
  void aDrainRacingAUsersPause(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String session = startSession("fault-16");
    String node = send("GET", "/api/v1/sessions/" + session, null, admin, Map.of()).body().at("/session/node_id").asText();
    List<Answer> answers = parallel(2, 2, i -> i == 0
        ? send("POST", "/api/v1/nodes/" + node + "/drain", "{\"mode\":\"pause\",\"reason\":\"fault 16\"}", admin, Map.of())
        : send("POST", "/api/v1/sessions/" + session + "/pause", null, demo, Map.of()));
    Instant raced = Instant.now();
    assertThat(answers).extracting(Answer::status).allMatch(s -> s < 500);
    assertThat(answers.get(0).status()).as(answers.get(0).body().toString()).isEqualTo(202);
    String drain = answers.get(0).body().at("/operation/id").asText();
    String status = awaitOperation(drain, Duration.ofMinutes(3));
    assertThat(status).isEqualTo("completed");
    // Both wanted it paused: it is, once, and billed once.
    assertThat(awaitState(session, List.of("paused"), Duration.ofMinutes(2))).isEqualTo("paused");
    note = "user's pause " + answers.get(1).status() + ", drain " + status;
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
    try (KubernetesClient kube = runtime.clusters().get(0).simulator().newClient()) {
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
    String offering = catalogue.offerings().stream().filter(o -> mode.equals(o.mode())).findFirst().orElseThrow().id();
    return send("POST", "/api/v1/sessions", "{\"offering_id\":\"" + offering + "\",\"image_id\":\""
        + catalogue.imageId() + "\",\"name\":\"" + name + "\"}", token, Map.of());
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
    return new Answer(response.statusCode(), json, response.headers().firstValue("Content-Type").orElse(""));
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
