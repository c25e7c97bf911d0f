package io.gshare.dev.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.gshare.activities.cluster.model.WorkerObjects;
import io.gshare.client.ApiPaths;
import io.gshare.client.ApiResponse;
import io.gshare.dev.DemoCatalogue;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.KubeCluster;
import io.gshare.workflows.common.TaskQueues;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.common.v1.WorkflowType;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.PollActivityTaskQueueRequest;
import io.temporal.api.workflowservice.v1.PollWorkflowTaskQueueRequest;
import io.temporal.api.workflowservice.v1.RespondActivityTaskCompletedByIdRequest;
import io.temporal.api.workflowservice.v1.RespondActivityTaskCompletedRequest;
import io.temporal.api.workflowservice.v1.SignalWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.StartWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.TerminateWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The fault suite's scenarios in the control plane and at its edge ({@link FaultSuite}): the api, PostgreSQL and
 * Temporal restarted, reports replayed, idempotency keys and command bursts, credits running out, clock skew,
 * malformed bodies, every token flaw, floods. A class of its own, with its own dev runtime, so that it runs beside
 * {@link FaultSuiteClusterIT} when the integration tests run in two forks.
 */
class FaultSuiteControlPlaneIT extends FaultSuite {

  @Test
  @DisplayName("10 the same idempotency key 100 times in parallel; the same key with another body")
  void theSameIdempotencyKeyAHundredTimesInParallel(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String key = "fault-10-" + System.nanoTime();
    String body = "{\"user_id\":\"" + catalogue.demoUserId() + "\",\"amount\":5,\"description\":\"fault 10\"}";
    BigDecimalBalance before = balance(catalogue.demoUserId());
    List<Answer> answers = parallel(100, 32, i -> send("POST", ApiPaths.CREDIT_GRANTS, body, admin,
        Map.of("Idempotency-Key", key)));
    assertThat(answers).extracting(Answer::status).allMatch(s -> s == 200 || s == 201);
    assertThat(answers).filteredOn(a -> a.status() == 201).hasSize(1);
    assertThat(answers).extracting(a -> a.body().path("entry_id").asLong()).containsOnly(
        answers.get(0).body().path("entry_id").asLong());
    assertThat(balance(catalogue.demoUserId()).value()).isEqualByComparingTo(before.value().add(
        BigDecimal.valueOf(5)));

    Answer other = send("POST", ApiPaths.CREDIT_GRANTS, body.replace("\"amount\":5", "\"amount\":6"), admin,
        Map.of("Idempotency-Key", key));
    assertThat(other.status()).isEqualTo(409);
    assertThat(other.contentType()).startsWith("application/problem+json");
    assertThat(other.body().path("code").asText()).isEqualTo("conflict");
    assertThat(balance(catalogue.demoUserId()).value()).isEqualByComparingTo(before.value().add(
        BigDecimal.valueOf(5)));
    endScenario(info, started, started.minus(SETTLE));
  }

  @Test
  @DisplayName("11 1,000 pause/resume commands on one session in a burst")
  void aThousandPauseAndResumeCommandsInABurst(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String session = startSession("fault-11");
    AtomicInteger n = new AtomicInteger();
    List<Answer> answers = parallel(1000, 16, i -> send("POST", ApiPaths.session(session)
        + (n.getAndIncrement() % 2 == 0 ? "/pause" : "/resume"), null, demo, Map.of()));
    Map<Integer, Long> byStatus = new TreeMap<>();
    answers.forEach(a -> byStatus.merge(a.status(), 1L, Long::sum));
    // Each command is accepted or refused in words; none fails the server.
    assertThat(byStatus.keySet()).as("statuses " + byStatus).allMatch(s -> s < 500);
    answers.stream().filter(a -> a.status() >= 400).forEach(a -> assertThat(a.contentType())
        .startsWith("application/problem+json"));
    Instant burstEnded = Instant.now();
    // Refused at once, in words, while one command runs and one waits: the validator's refusal reaches the api as one.
    assertThat(byStatus.keySet()).as("statuses " + byStatus).contains(409);
    assertThat(answers.stream().filter(a -> a.status() == 409).map(a -> a.body().path("type").asText()))
        .contains("urn:gshare:problem:operation_in_progress");
    String state = awaitState(session, List.of("running", "paused"), Duration.ofMinutes(3));
    assertThat(state).isIn("running", "paused");
    long notTaken = answers.stream().filter(a -> a.body().path("detail").asText().contains("was not taken")).count();
    note = "answers by status " + byStatus + "; " + notTaken + " of the 409s past Temporal's in-flight update limit";
    endScenario(info, started, burstEnded);
    terminate(session);
  }

  /**
   * Schemathesis (PyPI, installed by hack/tools.sh) generates requests that break the served OpenAPI document's
   * schemas for every /api and /internal operation (negative mode: wrong types, missing members, out-of-range values,
   * malformed bodies) with an admin's and with the cluster-worker's token. No answer may be a 5xx, a status the
   * operation does not declare, or anything but problem+json for an error; and nothing is written.
   */
  @Test
  @DisplayName("18 oversized and malformed bodies on every endpoint (schemathesis, negative mode)")
  void malformedAndOversizedBodiesOnEveryEndpoint(TestInfo info) throws Exception {
    Instant started = Instant.now();
    Path st = Path.of(System.getProperty("gshare.dev.schemathesis", "../.tools/schemathesis/bin/st"));
    assertThat(st).as("schemathesis: run hack/tools.sh").isExecutable();
    Map<String, Long> before = writtenRows();

    Path dir = Path.of("target", "schemathesis").toAbsolutePath();
    Files.createDirectories(dir);
    Path document = dir.resolve("openapi.json");
    ApiResponse served = api.exchange("GET", ApiPaths.BASE + "/openapi", null);
    assertThat(served.status()).isEqualTo(200);
    Files.writeString(document, served.text());
    List<String> failed = new ArrayList<>();
    failed.addAll(fuzz(st, document, dir, "api", admin, "^/api/"));
    failed.addAll(fuzz(st, document, dir, "internal", operatorToken(), "^/internal/v1/"));

    // Bodies over the limits, declared and streamed: 413 before anything is read, in words.
    byte[] twoMiB = new byte[2 * 1024 * 1024];
    Arrays.fill(twoMiB, (byte) ' ');
    for (boolean chunked : List.of(false, true)) {
      HttpRequest.BodyPublisher body = chunked
          ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(twoMiB))
          : HttpRequest.BodyPublishers.ofByteArray(twoMiB);
      HttpResponse<String> big = http.send(HttpRequest.newBuilder(URI.create(runtime.apiUrl() + ApiPaths.TEAMS))
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
  @Tag("slow-fault")
  @DisplayName("20 a flood of reports from one worker and of creates from one user")
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

  /**
   * A worker whose clock is 5 minutes ahead, then 5 minutes behind: the usage samples it stamps are moved onto the
   * control plane's clock, so none lies in the future (where the idle reaper never reads) or minutes in the past
   * (where it would pause a session early). Tokens are minted and checked by the api alone, and billing windows are
   * the api's own clock, so the skew reaches nothing else.
   */
  @Test
  @DisplayName("13 clock skew of plus and minus 5 minutes between the api and a worker")
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
      try (Connection db = DriverManager.getConnection(runtime.dbUrl());
          PreparedStatement query = db.prepareStatement("select sampled_at, last_kernel_at from session_usage"
              + " where session_id = ? and gpu_util_percent = 42.5 order by id desc limit 1")) {
        query.setString(1, session);
        try (ResultSet row = query.executeQuery()) {
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

  /**
   * PostgreSQL stops and starts again (5 s down) while sessions are being placed, and again as the metering sweep
   * fires at the top of a minute. Requests meanwhile wait for a connection or answer 503 database_unavailable; every
   * accepted session ends up running; the sweep's retried activities charge each minute once.
   */
  @Test
  @Tag("slow-fault")
  @DisplayName("4 PostgreSQL restarted during placement and during metering")
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
    Instant nextMinute = Instant.now().truncatedTo(ChronoUnit.MINUTES).plusSeconds(60);
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

  @Test
  @DisplayName("9 duplicated, reordered and replayed /internal reports; a report from before a restart")
  void duplicatedReorderedAndReplayedReports(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String session = startSession("fault-9");
    String operator = operatorToken();
    String cluster = runtime.clusters().get(0).id();
    // The inventory as the worker last sent it, rebuilt from the database, sent 20 times at once.
    JsonNode nodes = send("GET", ApiPaths.query(ApiPaths.NODES, "cluster_id", cluster), null, admin, Map.of()).body().path("items");
    ObjectNode inventory = JSON.createObjectNode().put("cluster_id", cluster);
    ArrayNode reported = inventory.putArray("nodes");
    for (JsonNode node : nodes) {
      ObjectNode n = reported.addObject().put("hostname", node.path("hostname").asText())
          .put("ready", true).put("schedulable", node.path("schedulable").asBoolean())
          .put("gpu_mode", node.path("gpu_mode").asText()).put("lossless_pause", node.path("lossless_pause").asBoolean());
      n.set("labels", node.path("labels"));
      n.set("capacity", node.path("capacity"));
      ArrayNode gpus = n.putArray("gpus");
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
    assertThat(send("GET", ApiPaths.session(session), null, demo, Map.of()).body().at("/session/state").asText())
        .isEqualTo("running");
    endScenario(info, started, started.plusSeconds(5));
    terminate(session);
  }

  @Test
  @DisplayName("19 every token flaw on every /api and /internal path; the BOLA sweep")
  void everyTokenFlawOnEveryPathAndUserAsObjectsWithUserBsToken(TestInfo info) throws Exception {
    Instant started = Instant.now();
    JsonNode doc = send("GET", ApiPaths.BASE + "/openapi", null, admin, Map.of()).body();
    TokenForgery users = TokenForgery.of(demo, runtime.dataDir().resolve("keys").resolve("user-signing.jwks.json"));
    TokenForgery operators = TokenForgery.of(operatorToken(),
        runtime.dataDir().resolve("keys").resolve("internal-signing.jwks.json"));
    // The forgery itself is sound: re-signed unchanged, each token still works, so each flaw alone is refused.
    assertThat(send("GET", ApiPaths.ME, null, users.resigned(), Map.of()).status()).isEqualTo(200);
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
        String method = operation.getKey().toUpperCase(Locale.ROOT);
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
    Answer userB = send("POST", ApiPaths.USERS, "{\"email\":\"b-" + System.nanoTime() + "@example.com\"}", admin,
        Map.of());
    assertThat(userB.status()).as(userB.body().toString()).isEqualTo(201);
    String tokenOfB = send("POST", ApiPaths.userTokens(userB.body().path("id").asText()),
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
        String method = operation.getKey().toUpperCase(Locale.ROOT);
        String body = operation.getValue().has("requestBody") ? "{}" : null;
        Answer answer = send(method, concrete, body, tokenOfB, Map.of());
        if (answer.status() < 400 || answer.status() >= 500) {
          leaked.add(method + " " + concrete + ": " + answer.status());
        }
      }
    }
    assertThat(leaked).as("user A's objects answered to user B").isEmpty();
    assertThat(send("GET", ApiPaths.session(sessionOfA), null, demo, Map.of()).body().at("/session/state").asText())
        .isEqualTo("running");
    endScenario(info, started, started);
    terminate(sessionOfA);
  }

  @Test
  @DisplayName("21 a compromised data plane: its operator token against Temporal, beside live sessions")
  void aCompromisedDataPlane(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String attacked = startSession("fault-21-attacked");
    String clusterA = runtime.clusters().get(0).id();
    String token = operatorToken();
    String ns = "default";
    WorkflowExecution target = WorkflowExecution.newBuilder().setWorkflowId("session-" + attacked).build();
    TaskQueue control = TaskQueue.newBuilder().setName(TaskQueues.CONTROL).build();
    byte[] secret = Base64.getDecoder().decode(Files.readString(runtime.dataDir().resolve("keys")
        .resolve("temporal-gateway-task-token.key")).trim());
    // A task token as the gateway seals it for another cluster's worker (the documented format, made here
    // independently of the api's code), as a compromised cluster might have captured it.
    ByteString capturedFromB = sealed(secret, "clu_another", "captured".getBytes(StandardCharsets.UTF_8));
    Map<String, Function<WorkflowServiceGrpc.WorkflowServiceBlockingStub, Object>> attack = new LinkedHashMap<>();
    attack.put("terminate a live session's workflow", s -> s.terminateWorkflowExecution(
        TerminateWorkflowExecutionRequest.newBuilder().setNamespace(ns).setWorkflowExecution(target).build()));
    attack.put("signal it", s -> s.signalWorkflowExecution(SignalWorkflowExecutionRequest.newBuilder()
        .setNamespace(ns).setWorkflowExecution(target).setSignalName("forged-by-fault-21").build()));
    attack.put("read its history", s -> s.getWorkflowExecutionHistory(GetWorkflowExecutionHistoryRequest.newBuilder()
        .setNamespace(ns).setExecution(target).build()));
    attack.put("list every operation", s -> s.listWorkflowExecutions(ListWorkflowExecutionsRequest.newBuilder()
        .setNamespace(ns).build()));
    attack.put("start a workflow", s -> s.startWorkflowExecution(StartWorkflowExecutionRequest.newBuilder()
        .setNamespace(ns).setWorkflowId("forged-by-fault-21").setRequestId("fault-21")
        .setWorkflowType(WorkflowType.newBuilder().setName("SessionWorkflow")).setTaskQueue(control).build()));
    attack.put("poll the workflow tasks", s -> s.pollWorkflowTaskQueue(PollWorkflowTaskQueueRequest.newBuilder()
        .setNamespace(ns).setTaskQueue(control).build()));
    attack.put("poll another cluster's queue", s -> s.pollActivityTaskQueue(PollActivityTaskQueueRequest.newBuilder()
        .setNamespace(ns).setTaskQueue(TaskQueue.newBuilder().setName("gshare-cluster-clu_another")).build()));
    attack.put("complete another cluster's task", s -> s.respondActivityTaskCompleted(
        RespondActivityTaskCompletedRequest.newBuilder().setNamespace(ns).setTaskToken(capturedFromB).build()));
    attack.put("complete a task by its ids", s -> s.respondActivityTaskCompletedById(
        RespondActivityTaskCompletedByIdRequest.newBuilder().setNamespace(ns).setWorkflowId(target.getWorkflowId())
            .setActivityId("1").build()));

    ExecutorService pool = Executors.newSingleThreadExecutor();
    // Live work beside the attack: another session starting, through the same worker the token belongs to.
    Future<String> beside = pool.submit(() -> startSession("fault-21-beside"));
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
        .setTarget(runtime.temporalGatewayAddress()).setEnableHttps(false).addApiKey(() -> token).build());
    List<String> notRefused = new ArrayList<>();
    try {
      for (var call : attack.entrySet()) {
        try {
          call.getValue().apply(stubs.blockingStub().withDeadlineAfter(10, TimeUnit.SECONDS));
          notRefused.add(call.getKey());
        } catch (StatusRuntimeException e) {
          if (e.getStatus().getCode() != Status.Code.PERMISSION_DENIED) {
            notRefused.add(call.getKey() + ": " + e.getStatus());
          }
        }
      }
      // The forgery is sound: sealed for cluster A itself, the gateway lets the token through to Temporal, which
      // refuses the made-up task inside it for what it is, not for whose it is.
      StatusRuntimeException own = org.assertj.core.api.Assertions.catchThrowableOfType(StatusRuntimeException.class,
          () -> stubs.blockingStub().withDeadlineAfter(10, TimeUnit.SECONDS).respondActivityTaskCompleted(
              RespondActivityTaskCompletedRequest.newBuilder().setNamespace(ns)
                  .setTaskToken(sealed(secret, clusterA, "captured".getBytes(StandardCharsets.UTF_8))).build()));
      assertThat(own.getStatus().getCode()).as(own.getStatus().toString()).isNotEqualTo(Status.Code.PERMISSION_DENIED);
    } finally {
      stubs.shutdownNow();
    }
    Instant lastFault = Instant.now();
    assertThat(notRefused).as("calls a compromised cluster's token was not refused").isEmpty();
    String besideSession = beside.get(3, TimeUnit.MINUTES);
    pool.shutdown();

    // The attacked session runs on, its workflow neither signalled, cancelled nor terminated by the attack.
    assertThat(awaitState(attacked, List.of("running"), Duration.ofSeconds(30))).isEqualTo("running");
    WorkflowServiceStubs direct = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
        .setTarget(runtime.temporalAddress()).build());
    try {
      var events = direct.blockingStub().getWorkflowExecutionHistory(GetWorkflowExecutionHistoryRequest.newBuilder()
          .setNamespace(ns).setExecution(target).build()).getHistory().getEventsList();
      assertThat(events).noneMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED
          || e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED
          || e.hasWorkflowExecutionSignaledEventAttributes()
          && e.getWorkflowExecutionSignaledEventAttributes().getSignalName().equals("forged-by-fault-21"));
    } finally {
      direct.shutdownNow();
    }
    note = attack.size() + " calls refused";
    endScenario(info, started, lastFault);
    terminate(attacked);
    terminate(besideSession);
  }

  /** {@code version 1 || HMAC-SHA256(HMAC-SHA256(secret, "gshare-task-token/" + cluster), upstream)[0..16) || upstream}. */
  private static ByteString sealed(byte[] secret, String clusterId, byte[] upstream) throws Exception {
    Mac derive = Mac.getInstance("HmacSHA256");
    derive.init(new SecretKeySpec(secret, "HmacSHA256"));
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(derive.doFinal(("gshare-task-token/" + clusterId).getBytes(StandardCharsets.UTF_8)),
        "HmacSHA256"));
    return ByteString.copyFrom(new byte[] {1}).concat(ByteString.copyFrom(Arrays.copyOf(mac.doFinal(upstream), 16)))
        .concat(ByteString.copyFrom(upstream));
  }

  @Test
  @DisplayName("3 the api killed mid-drain with creates in flight; restarted as a Deployment would")
  void theApiKilledMidDrainWithCreatesInFlight(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String session = startSession("fault-3-running");
    String node = send("GET", ApiPaths.session(session), null, admin, Map.of()).body().at("/session/node_id").asText();
    Answer drain = send("POST", ApiPaths.node(node) + "/drain", "{\"mode\":\"pause\",\"reason\":\"fault 3\"}",
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
        } catch (IOException cut) {
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
    Answer uncordon = send("POST", ApiPaths.node(node) + "/uncordon", null, admin, Map.of());
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
  @Tag("slow-fault")
  @DisplayName("3 the api killed mid-attach")
  void theApiKilledMidAttach(TestInfo info) throws Exception {
    Instant started = Instant.now();
    try (KubeCluster sim = KubeCluster.start(SimSeed.defaultSeed(),
        KubeCluster.Options.defaults().withName("fault-3-attach"))) {
      String kubeconfig = Files.readString(sim.writeKubeconfig(dataDir.resolve("fault-3-attach.kubeconfig")));
      Answer registered = send("POST", ApiPaths.CLUSTERS, JSON.writeValueAsString(Map.of("name", "fault-3-attach",
          "kubeconfig", kubeconfig)), admin, Map.of());
      assertThat(registered.status()).as(registered.body().toString()).isEqualTo(202);
      String cluster = registered.body().at("/cluster/id").asText();
      String operation = registered.body().at("/operation/id").asText();
      // Past "reach the apiserver", before "deploy the cluster-worker".
      String stepAtKill = null;
      Instant deadline = Instant.now().plusSeconds(60);
      while (stepAtKill == null && Instant.now().isBefore(deadline)) {
        JsonNode steps = send("GET", ApiPaths.operation(operation), null, admin, Map.of()).body().path("steps");
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
      assertThat(status).as(send("GET", ApiPaths.operation(operation), null, admin, Map.of()).body().toString())
          .isEqualTo("completed");
      assertThat(send("GET", ApiPaths.cluster(cluster), null, admin, Map.of()).body().path("status").asText())
          .isEqualTo("connected");
      try (KubernetesClient kube = sim.newClient()) {
        assertThat(kube.secrets().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.TOKEN_SECRET).get()).isNotNull();
      }
      note = "killed at \"" + stepAtKill + "\"; the attach completed " + Duration.between(killed, Instant.now()).toSeconds()
          + " s later with the restarted api";
      endScenario(info, started, killed);
      Answer detach = send("DELETE", ApiPaths.cluster(cluster), null, admin, Map.of());
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
  @Tag("slow-fault")
  @DisplayName("3 the api killed mid-rotation and mid-reclaim")
  void theApiKilledMidRotationAndMidReclaim(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String cluster = runtime.clusters().get(0).id();
    String volume = volumeWithClaim("fault-3-volume", manualPool("fault-3-pool"));
    Answer deleted = send("DELETE", ApiPaths.volume(volume), null, demo, Map.of());
    assertThat(deleted.status()).isEqualTo(202);
    Instant reclaimAfter = Instant.parse(deleted.body().path("reclaim_after").asText());

    Answer rotation = send("POST", ApiPaths.cluster(cluster) + "/rotate-token", null, admin, Map.of());
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
  @DisplayName("5 the Temporal server restarted, its database kept, while sessions run and start")
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
      pause = send("POST", ApiPaths.session(running) + "/pause", null, demo, Map.of());
      if (pause.status() != 503) {
        break;
      }
      // While the api's client reconnects it answers 503 temporal_unavailable, in words; the caller retries.
      assertThat(pause.body().path("code").asText()).isEqualTo("temporal_unavailable");
      Thread.sleep(1_000);
    }
    // 200 when carried out within the request's wait; 202 when accepted and still being carried out. The cluster
    // worker's pollers back off while Temporal is down (the SDK's poll backoff grows to a minute, not configurable),
    // so the pod's deletion may wait for the worker's next poll: the pause is queued in the workflow, not lost.
    assertThat(pause.status()).as(pause.body().toString()).isIn(200, 202);
    if (pause.status() == 202) {
      assertThat(pause.body().at("/session/state").asText()).isEqualTo("pausing");
    }
    assertThat(awaitState(running, List.of("paused", "failed"), Duration.ofMinutes(2))).isEqualTo("paused");
    note = "a session created before the restart runs; one running pauses after it (answered " + pause.status() + ")";
    endScenario(info, started, restarted);
    terminate(running);
    terminate(starting);
  }

  @Test
  @Tag("slow-fault")
  @DisplayName("12 credits running out mid-session; a grant arriving during the pause")
  void creditsRunningOutMidSessionAndAGrantDuringThePause(TestInfo info) throws Exception {
    Instant started = Instant.now();
    Answer user = send("POST", ApiPaths.USERS, "{\"email\":\"poor-" + System.nanoTime() + "@example.com\"}", admin,
        Map.of());
    String userId = user.body().path("id").asText();
    String token = send("POST", ApiPaths.userTokens(userId), "{\"name\":\"fault-12\"}", admin, Map.of())
        .body().path("token").asText();
    BigDecimal perMinute = DemoCatalogue.FRACTIONAL_PRICE_PER_HOUR.divide(BigDecimal.valueOf(60), 6,
        RoundingMode.HALF_UP);
    // Two minutes' worth.
    grant(userId, perMinute.multiply(BigDecimal.valueOf(2)).add(new BigDecimal("0.001")), "fault-12-a");
    String session = createSession("fault-12", "fractional", token);
    assertThat(awaitState(session, List.of("running"), Duration.ofMinutes(2))).isEqualTo("running");
    // The metering sweep runs every minute: within a few, the balance cannot pay the next minute and it pauses.
    assertThat(awaitState(session, List.of("paused"), Duration.ofMinutes(5))).isEqualTo("paused");
    Instant paused = Instant.now();
    BigDecimal balance = balance(userId).value();
    assertThat(balance).as("at most one minute below zero").isGreaterThanOrEqualTo(perMinute.negate());
    // A grant during the pause: the user resumes and it runs again.
    grant(userId, BigDecimal.ONE, "fault-12-b");
    Answer resumed = send("POST", ApiPaths.session(session) + "/resume", null, token, Map.of());
    assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
    assertThat(awaitState(session, List.of("running"), Duration.ofMinutes(2))).isEqualTo("running");
    note = "paused at balance " + balance + ", resumed after the grant";
    endScenario(info, started, paused);
    send("DELETE", ApiPaths.session(session), null, token, Map.of());
    awaitState(session, List.of("terminated", "failed"), Duration.ofMinutes(2));
  }
}
