package io.gshare.dev.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gshare.client.ApiCallException;
import io.gshare.client.ApiJson;
import io.gshare.client.ApiPaths;
import io.gshare.client.ApiResponse;
import io.gshare.client.GshareClient;
import io.gshare.client.session.NewSession;
import io.gshare.dev.DevRuntime;
import io.gshare.dev.TestRuntimes;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The fault suite's scenario 25 ({@link FaultSuite}): the control plane as two api replicas, each with its control
 * worker, behind one nginx ({@code --api-replicas 2}: one upstream of their HTTP ports, one of their Temporal
 * gateways), on one PostgreSQL (the signing keys there) and one Temporal. Users create, pause, resume and end
 * sessions and read them through nginx while one replica is SIGKILLed and restarted and the other then restarted as a
 * rolling update does; then a replica's control worker is killed mid-lifecycle and the other carries the sessions on.
 * No answer is a 5xx but 503 with {@code Retry-After}, which the client sends again when that is safe; every accepted
 * session ends where it was sent; the cluster-worker keeps reaching Temporal through nginx, never restarted; the four
 * invariants hold.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultSuiteReplicasIT extends FaultSuite {

  /** Every answer a scenario's caller got (status -1: none, the call failed), and each 503 the client sent again after. */
  record Seen(String method, String path, int status, String code, String retryAfter, boolean retried) {}

  private final List<Seen> seen = Collections.synchronizedList(new ArrayList<>());

  @Override
  DevRuntime startRuntime(String logDir, Path dataDir) throws IOException {
    return TestRuntimes.startWithReplicas(2, logDir, dataDir);
  }

  @Test
  @Order(1)
  @DisplayName("25 two api replicas behind nginx: one SIGKILLed mid-traffic and restarted, then the other restarted as a"
      + " rolling update does, under creates, commands and reads")
  void oneReplicaKilledAndTheOtherRolledUnderTraffic(TestInfo info) throws Exception {
    Instant started = Instant.now();
    assertThat(runtime.apiReplicas()).isEqualTo(2);
    long clusterWorker = workerPid();
    long accessLogFrom = Files.size(runtime.frontAccessLog());
    seen.clear();
    AtomicBoolean more = new AtomicBoolean(true);
    ExecutorService pool = Executors.newFixedThreadPool(5);
    List<Future<List<String>>> users = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int thread = t;
      // Each user: create a session, wait until it runs, pause it, resume it, end it; again, while there is traffic.
      users.add(pool.submit(() -> {
        List<String> outcomes = new ArrayList<>();
        for (int n = 0; more.get(); n++) {
          outcomes.add(lifecycle("fault-25-" + thread + "-" + n));
        }
        return outcomes;
      }));
    }
    Future<Integer> reads = pool.submit(() -> {
      int count = 0;
      while (more.get()) {
        call("GET", ApiPaths.SESSIONS, null, demo);
        call("GET", ApiPaths.NODES, null, admin);
        count += 2;
        Thread.sleep(200);
      }
      return count;
    });

    Thread.sleep(6_000);
    runtime.killApi(0);
    Instant killed = Instant.now();
    runtime.awaitApiRestarted(Duration.ofMinutes(4));
    Duration down = Duration.between(killed, Instant.now());
    Thread.sleep(2_000);
    Instant rollStarted = Instant.now();
    runtime.restartApi(1);
    Instant rolled = Instant.now();
    more.set(false);
    List<String> outcomes = new ArrayList<>();
    for (Future<List<String>> user : users) {
      outcomes.addAll(user.get(4, TimeUnit.MINUTES));
    }
    int readCount = reads.get(1, TimeUnit.MINUTES);
    pool.shutdown();

    List<Seen> answers = List.copyOf(seen);
    Map<Integer, Long> byStatus = new TreeMap<>();
    answers.stream().filter(s -> !s.retried()).forEach(s -> byStatus.merge(s.status(), 1L, Long::sum));
    Map<String, Long> refusals = new TreeMap<>();
    answers.stream().filter(s -> s.status() >= 400).forEach(s -> refusals.merge(s.method() + " " + s.status() + " "
        + s.code(), 1L, Long::sum));
    List<Seen> unavailable = answers.stream().filter(s -> s.status() == 503).toList();
    assertThat(answers).as("calls that got no answer at all").noneMatch(s -> s.status() == -1);
    assertThat(answers).as("5xx answers other than 503").noneMatch(s -> s.status() >= 500 && s.status() != 503);
    assertThat(unavailable).as("503s without Retry-After").allMatch(s -> "1".equals(s.retryAfter()));
    // Refused in words for what they asked, never for a cluster taken out of placement by the restarts.
    assertThat(refusals.keySet()).as("refusals").allMatch(r -> r.endsWith(" 503 unavailable")
        || r.endsWith(" insufficient_capacity") || r.endsWith(" operation_in_progress") || r.endsWith(" rate_limited"));
    // Every accepted create ran its whole lifecycle: running, paused, running again, ended.
    List<String> accepted = outcomes.stream().filter(o -> !o.startsWith("create ")).toList();
    assertThat(accepted).as("lifecycles " + outcomes).isNotEmpty().allMatch(o -> o.endsWith(": done"));
    // The cluster-worker outlived both replicas' restarts, reaching Temporal through nginx's gRPC front all along.
    assertThat(ProcessHandle.of(clusterWorker).map(ProcessHandle::isAlive)).as("the cluster-worker " + clusterWorker)
        .contains(true);
    FrontLog front = frontLog(accessLogFrom);
    Map<String, Long> servedBy = front.served();
    // Both served users; the worker's Temporal calls went through nginx to the replicas' gateways.
    assertThat(servedBy.keySet()).as("what each replica answered, from nginx's access log: " + servedBy)
        .contains("api-0 http", "api-1 http").anyMatch(k -> k.endsWith(" gateway"));
    // A create cut off by the kill may have made a session nobody was told of: it ends like any other.
    Instant lastFault = rolled;
    endRemaining("fault-25-");

    note = String.format("%d requests (%d reads by the reader), answers %s, refusals %s; %d 503s (%d sent again by the client, %d"
        + " back to the caller: POSTs without an Idempotency-Key), each with Retry-After: 1; %d lifecycles done, %d"
        + " creates refused or cut off; replica 0 down %d s after SIGKILL, replica 1 rolled in %d s; nginx passed %d"
        + " requests on to the other replica; the cluster-worker never restarted, its Temporal calls through nginx;"
        + " answered by %s", answers.stream().filter(s -> !s.retried()).count(), readCount,
        byStatus, refusals, unavailable.size(), unavailable.stream().filter(Seen::retried).count(),
        unavailable.stream().filter(s -> !s.retried()).count(), accepted.size(), outcomes.size() - accepted.size(),
        down.toSeconds(), Duration.between(rollStarted, rolled).toSeconds(), front.passedOn(), servedBy);
    endScenario(info, started, lastFault);
  }

  /**
   * A replica SIGKILLed while sessions are created, paused and ended: the one whose control worker holds most of the
   * running sessions' workflows (a session's workflow lives as long as it does, its tasks kept on the worker that ran
   * it last), so that the work it held is lost mid-lifecycle. It stays down; the other replica's control worker takes
   * the workflow tasks from Temporal (once the dead one's sticky queue times out) and their activities (once their
   * start-to-close timeout passes), and every lifecycle ends where it was sent.
   */
  @Test
  @Order(2)
  @DisplayName("25 a control worker killed mid-lifecycle (its replica SIGKILLed and left down): the other carries the"
      + " sessions on")
  void aControlWorkerKilledMidLifecycle(TestInfo info) throws Exception {
    Instant started = Instant.now();
    seen.clear();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<String>> starting = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      String name = "fault-25-w-" + i;
      starting.add(pool.submit(() -> startSession(name)));
    }
    List<String> running = new ArrayList<>();
    for (Future<String> session : starting) {
      running.add(session.get(3, TimeUnit.MINUTES));
    }
    Map<String, Set<Integer>> before = controlWorkersOf(running);
    Map<Integer, Long> owners = new TreeMap<>();
    before.values().forEach(replicas -> replicas.forEach(r -> owners.merge(r, 1L, Long::sum)));
    int victim = owners.getOrDefault(1, 0L) > owners.getOrDefault(0, 0L) ? 1 : 0;
    long victimPid = runtime.apiPid(victim);

    // Two created, two paused, two ended, and the replica killed while they are under way (a command's answer waits
    // for its cluster to carry it out: the kill cuts off those the victim took).
    long accessLogFrom = Files.size(runtime.frontAccessLog());
    Map<String, String> expected = new LinkedHashMap<>();
    for (int i = 0; i < 2; i++) {
      Answer answer = requestSessionCounted("fault-25-w-create-" + i);
      assertThat(answer.status()).as(answer.body().toString()).isEqualTo(202);
      expected.put(answer.body().at("/session/id").asText(), "running");
    }
    List<Future<Seen>> commands = new ArrayList<>();
    for (int i = 0; i < running.size(); i++) {
      String id = running.get(i);
      boolean pause = i % 2 == 0;
      expected.put(id, pause ? "paused" : "terminated");
      commands.add(pool.submit(() -> pause ? call("POST", ApiPaths.session(id) + "/pause", null, demo)
          : call("DELETE", ApiPaths.session(id), null, demo)));
    }
    Thread.sleep(200);
    runtime.killApi(victim);
    Instant killed = Instant.now();
    List<Integer> commandStatuses = new ArrayList<>();
    for (Future<Seen> command : commands) {
      commandStatuses.add(command.get(1, TimeUnit.MINUTES).status());
    }
    pool.shutdown();
    // A command the kill cut off (503: a POST is not sent again by the client) is looked at and sent again.
    Map<String, String> reached = new LinkedHashMap<>();
    for (var want : expected.entrySet()) {
      String command = switch (want.getValue()) {
        case "paused" -> "pause";
        case "terminated" -> "end";
        default -> null;
      };
      reached.put(want.getKey(), drive(want.getKey(), want.getValue(), command, Duration.ofMinutes(3)));
    }
    Duration carriedOn = Duration.between(killed, Instant.now());
    assertThat(runtime.apiPid(victim)).as("the killed replica stayed down").isEqualTo(victimPid);
    assertThat(ProcessHandle.of(victimPid).map(ProcessHandle::isAlive)).isIn(Optional.empty(), Optional.of(false));
    assertThat(reached).as("each session where it was sent, with replica " + victim + " down")
        .containsExactlyEntriesOf(expected);
    List<Seen> answers = List.copyOf(seen);
    assertThat(answers).as("calls that got no answer at all").noneMatch(s -> s.status() == -1);
    assertThat(answers).as("5xx answers other than 503").noneMatch(s -> s.status() >= 500 && s.status() != 503);
    assertThat(answers.stream().filter(s -> s.status() == 503)).as("503s without Retry-After")
        .allMatch(s -> "1".equals(s.retryAfter()));
    // The handover, from the workflows' histories: begun on the killed replica's control worker, carried on by the
    // other's.
    List<String> all = new ArrayList<>(expected.keySet());
    Map<String, Set<Integer>> after = controlWorkersOf(all);
    List<String> handedOver = all.stream().filter(id -> before.getOrDefault(id, Set.of()).contains(victim)
        && after.getOrDefault(id, Set.of()).contains(1 - victim)).toList();
    assertThat(handedOver).as("workflows begun on replica " + victim + "'s control worker, carried on by the other's; "
        + "before the kill " + before + ", after " + after).isNotEmpty();
    FrontLog front = frontLog(accessLogFrom);
    note = String.format("replica %d killed holding %d of %d running sessions' workflows (owners by replica %s),"
        + " with 2 creates, 2 pauses and 2 ends (answered %s) under way; nginx passed %d cut-off requests on to the"
        + " other replica; %d lifecycles begun there carried on by replica %d's control worker; every session where"
        + " it was sent %d s after the kill; left down", victim, owners.getOrDefault(victim, 0L), running.size(), owners,
        commandStatuses, front.passedOn(), handedOver.size(), 1 - victim, carriedOn.toSeconds());
    endScenario(info, started, killed);
  }

  // ---------------------------------------------------------------------------------------------------------------

  /** One user's session from create to end; {@code "<id>: done"}, else what stopped it. */
  private String lifecycle(String name) throws Exception {
    Answer created = requestSessionCounted(name);
    if (created == null || created.status() != 202) {
      // Refused in words (capacity, quota, rate) or cut off (503): nothing accepted to follow.
      Thread.sleep(1_000);
      return "create " + (created == null ? "failed" : created.status());
    }
    String id = created.body().at("/session/id").asText();
    for (String[] step : new String[][] {{"running", null}, {"paused", "pause"}, {"running", "resume"},
        {"terminated", "end"}}) {
      String state = drive(id, step[0], step[1], Duration.ofMinutes(3));
      if (!step[0].equals(state)) {
        return id + ": stuck " + state + ", wanted " + step[0];
      }
    }
    return id + ": done";
  }

  /**
   * Reads the session until it is {@code target}, sending {@code command} ({@code pause}, {@code resume} or
   * {@code end}; none when null) whenever it has settled elsewhere, as a user does who looks before sending again; the
   * state it ended in.
   */
  private String drive(String id, String target, String command, Duration within) throws Exception {
    Instant deadline = Instant.now().plus(within);
    String state = null;
    while (Instant.now().isBefore(deadline)) {
      Seen read = call("GET", ApiPaths.session(id), null, demo);
      state = read.status() == 200 ? lastBody.get().at("/session/state").asText() : state;
      if (target.equals(state) || "failed".equals(state) || "terminated".equals(state)) {
        return state;
      }
      if (command != null && ("running".equals(state) || "paused".equals(state))) {
        if (command.equals("end")) {
          call("DELETE", ApiPaths.session(id), null, demo);
        } else {
          call("POST", ApiPaths.session(id) + "/" + command, null, demo);
        }
      }
      Thread.sleep(500);
    }
    return state;
  }

  /** The body of this thread's last answer. */
  private final ThreadLocal<JsonNode> lastBody = ThreadLocal.withInitial(() -> JSON.nullNode());

  private Answer requestSessionCounted(String name) {
    String offering = catalogue.offerings().stream().filter(o -> "fractional".equals(o.mode())).findFirst()
        .orElseThrow().id();
    Seen answer = call("POST", ApiPaths.SESSIONS, new NewSession(offering, catalogue.imageId(), null, name, null), demo);
    return answer.status() < 0 ? null : new Answer(answer.status(), lastBody.get(), null, answer.retryAfter());
  }

  /**
   * {@code method path} through nginx as the holder of {@code token}, with the client's retries of a 503 with
   * Retry-After; every answer, and each 503 sent again, goes into {@link #seen}.
   */
  private Seen call(String method, String path, Object body, String token) {
    GshareClient client = api.as(token).onRetry(r -> seen.add(new Seen(r.method(), r.path(), r.status(),
        r.json().path("code").asText(null), r.headers().firstValue("Retry-After").orElse(null), true)));
    Seen answer;
    try {
      ApiResponse response = client.exchange(method, path, body, Map.of());
      lastBody.set(response.text().isBlank() || !response.isJson() ? JSON.nullNode() : ApiJson.MAPPER.readTree(response.body()));
      answer = new Seen(method, path, response.status(), response.status() >= 400 ? lastBody.get().path("code").asText(null)
          : null, response.headers().firstValue("Retry-After").orElse(null), false);
    } catch (ApiCallException | IOException e) {
      answer = new Seen(method, path, -1, null, null, false);
      lastBody.set(JSON.nullNode());
    }
    seen.add(answer);
    return answer;
  }

  /** Ends every session whose name starts with {@code prefix} that has not ended (a create cut off made it unseen). */
  private void endRemaining(String prefix) throws Exception {
    List<String> open = new ArrayList<>();
    try (var db = DriverManager.getConnection(runtime.dbUrl());
        var query = db.prepareStatement("select id from sessions where name like ? and state not in ('terminated',"
            + " 'failed')")) {
      query.setString(1, prefix + "%");
      try (var rows = query.executeQuery()) {
        while (rows.next()) {
          open.add(rows.getString(1));
        }
      }
    }
    for (String id : open) {
      drive(id, "terminated", "end", Duration.ofMinutes(2));
    }
  }

  /**
   * What the front's access log says since {@code from}: the requests each replica answered (the last address nginx
   * tried is the one that answered: {@code api-0 http}, {@code api-1 gateway} for the cluster-worker's Temporal calls,
   * ...), and how many nginx passed on to another replica after the first refused or cut them off.
   */
  record FrontLog(Map<String, Long> served, long passedOn) {}

  private FrontLog frontLog(long from) throws IOException {
    Map<Integer, String> ports = new TreeMap<>();
    for (int r = 0; r < runtime.apiReplicas(); r++) {
      ports.put(port(runtime.apiReplicaUrl(r)), "api-" + r + " http");
      ports.put(port(runtime.temporalGatewayAddress(r)), "api-" + r + " gateway");
    }
    Map<String, Long> served = new TreeMap<>();
    long passedOn = 0;
    Pattern upstream = Pattern.compile("upstream=(?:[^ ]*, )*127\\.0\\.0\\.1:(\\d+) ");
    byte[] log = Files.readAllBytes(runtime.frontAccessLog());
    String written = new String(log, (int) Math.min(from, log.length), (int) Math.max(0, log.length - from),
        StandardCharsets.UTF_8);
    for (String line : written.split("\n")) {
      Matcher m = upstream.matcher(line);
      if (m.find()) {
        served.merge(ports.getOrDefault(Integer.parseInt(m.group(1)), "port " + m.group(1)), 1L, Long::sum);
        passedOn += m.group().contains(", ") ? 1 : 0;
      }
    }
    return new FrontLog(served, passedOn);
  }

  private static int port(String address) {
    return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
  }

  /**
   * Which replicas' control workers ran each session's workflow tasks so far, from its history (their identity is
   * {@code <pid>@<host>/control}).
   */
  private Map<String, Set<Integer>> controlWorkersOf(List<String> sessions) {
    Map<Long, Integer> replicaOfPid = new TreeMap<>();
    for (int r = 0; r < runtime.apiReplicas(); r++) {
      replicaOfPid.put(runtime.apiPid(r), r);
    }
    Map<String, Set<Integer>> workers = new LinkedHashMap<>();
    WorkflowServiceStubs temporal = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
        .setTarget(runtime.temporalAddress()).build());
    try {
      for (String id : sessions) {
        Set<Integer> replicas = new HashSet<>();
        for (HistoryEvent event : temporal.blockingStub().getWorkflowExecutionHistory(GetWorkflowExecutionHistoryRequest
            .newBuilder().setNamespace("default").setExecution(WorkflowExecution.newBuilder()
                .setWorkflowId("session-" + id)).build()).getHistory().getEventsList()) {
          String identity = event.hasWorkflowTaskStartedEventAttributes()
              ? event.getWorkflowTaskStartedEventAttributes().getIdentity()
              : event.hasActivityTaskStartedEventAttributes()
                  ? event.getActivityTaskStartedEventAttributes().getIdentity() : "";
          if (identity.endsWith("/control") && identity.contains("@")) {
            Integer replica = replicaOfPid.get(Long.parseLong(identity.substring(0, identity.indexOf('@'))));
            if (replica != null) {
              replicas.add(replica);
            }
          }
        }
        workers.put(id, replicas);
      }
    } finally {
      temporal.shutdown();
    }
    return workers;
  }
}
