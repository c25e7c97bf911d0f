package io.gshare.api.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.HistoryRecorder;
import io.gshare.api.support.NewTestIds;
import io.gshare.api.support.PrometheusServer;
import io.gshare.client.ApiResponse;
import io.gshare.core.cluster.ClusterRepository;
import io.gshare.core.cluster.IdleSourceDefaults;
import io.gshare.core.credit.CreditLedger;
import io.gshare.core.node.Liveness;
import io.gshare.sim.kube.KubeCluster;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleListDescription;
import java.math.BigDecimal;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The idle reaper end to end: real PostgreSQL, the Temporal dev server and its {@code idle-reaper} Schedule,
 * two simulated clusters attached by the attach workflow with their real cluster-worker processes, and a real
 * Prometheus (Debian's package) scraping the simulator's DCGM-exporter endpoint. Cluster A reads activity from
 * that Prometheus; cluster B has no source. Policies: a 1-minute idle timeout (the warning comes at half of it),
 * and on B's team a 1-minute max runtime too.
 */
class IdleReaperIT extends ApiIntegrationTest {

  static final String MODEL_A = "NVIDIA IDLE-A40";
  static final String MODEL_B = "NVIDIA IDLE-L4";

  @Autowired ObjectMapper json;
  @Autowired CreditLedger ledger;
  @Autowired ScheduleClient schedules;
  @Autowired WorkflowClient workflows;

  private static final List<AutoCloseable> closing = new ArrayList<>();
  private String admin;

  @AfterAll
  static void stop() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private record Attached(KubeCluster sim, String clusterId) {}

  private Attached attach(String model, int gpus) throws Exception {
    AttachedSimulator attached = attachSimulator("idle", "idle-gpu-0", model, gpus, 46068);
    closing.add(attached.sim());
    return new Attached(attached.sim(), attached.clusterId());
  }

  private String teamUser(Map<String, Object> policy) throws Exception {
    String team = NewTestIds.next("team");
    jdbc.sql("insert into teams (id, name) values (:t, :t)").param("t", team).update();
    ApiResponse saved = send("PUT", "/api/v1/teams/" + team + "/policy", json.writeValueAsString(policy), admin);
    assertThat(saved.status()).as(saved.text()).isEqualTo(200);
    String user = newUser("user");
    jdbc.sql("update users set team_id = :t where id = :u").param("t", team).param("u", user).update();
    ledger.grant(user, new BigDecimal("100"), NewTestIds.next("g"), "test", null);
    return tokenFor(user);
  }

  private String offering(String model) throws Exception {
    ApiResponse created = post("/api/v1/offerings", "{\"name\":\"" + NewTestIds.next("off") + "\",\"gpu_model\":\""
        + model + "\",\"mode\":\"exclusive\",\"gpu_count\":1,\"price_per_hour\":6}", admin);
    assertThat(created.status()).as(created.text()).isEqualTo(201);
    return json.readTree(created.text()).get("id").asText();
  }

  private String session(String token, String offering, String image) throws Exception {
    ApiResponse created = post("/api/v1/sessions", "{\"offering_id\":\"" + offering + "\",\"image_id\":\""
        + image + "\"}", token);
    assertThat(created.status()).as(created.text()).isEqualTo(202);
    return json.readTree(created.text()).at("/session/id").asText();
  }

  private JsonNode view(String id) throws Exception {
    return json.readTree(get("/api/v1/sessions/" + id, admin).text());
  }

  private JsonNode awaitRunning(String id) {
    JsonNode[] last = new JsonNode[1];
    await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
      last[0] = view(id);
      assertThat(last[0].at("/session/state").asText()).isEqualTo("running");
    });
    return last[0];
  }

  /** The api leaves null fields out. */
  private static boolean absent(JsonNode field) {
    return field.isMissingNode() || field.isNull();
  }

  private int openWindows(String sessionId) {
    return jdbc.sql("select count(*) from billing_windows where session_id = :s and closed_at is null")
        .param("s", sessionId).query(Integer.class).single();
  }

  /** For the replay tests: a sweep (the Schedule's run, its id suffixed with the time) that signalled a session. */
  private void recordASweepThatPaused() {
    if (System.getProperty("gshare.record-histories") == null) {
      return;
    }
    workflows.listExecutions("WorkflowType = 'IdleReaper' AND ExecutionStatus = 'Completed'")
        .map(e -> e.getExecution().getWorkflowId())
        .filter(id -> workflows.fetchHistory(id).getEvents().stream().anyMatch(event -> event.getEventType()
            == EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED))
        .findFirst()
        .ifPresent(id -> HistoryRecorder.record(workflows, id, "idle-reaper"));
  }

  @Test
  void idleSessionsAreWarnedThenPausedWhileBusyWokenAndUnmeasuredOnesAreNot() throws Exception {
    admin = adminToken();
    // The Schedule is on the server, as `temporal schedule list` shows it.
    assertThat(schedules.listSchedules().map(ScheduleListDescription::getScheduleId).toList())
        .contains(WorkflowIds.IDLE_REAPER, WorkflowIds.TOKEN_ROTATION, WorkflowIds.SIGNING_KEY_ROTATION);

    Attached a = attach(MODEL_A, 3);
    Attached b = attach(MODEL_B, 1);
    PrometheusServer prometheus = PrometheusServer.scraping("dcgm",
        URI.create(a.sim().dcgmMetricsUrl()));
    closing.add(prometheus);
    ApiResponse patched = send("PATCH", "/api/v1/clusters/" + a.clusterId(),
        "{\"prometheus_url\":\"" + prometheus.url() + "\"}", admin);
    assertThat(patched.status()).as(patched.text()).isEqualTo(200);
    assertThat(json.readTree(get("/api/v1/clusters/" + b.clusterId(), admin).text()).at("/idle_reaping/enabled")
        .asBoolean()).isFalse();
    // The chart's operator.hamiMonitorUrl (gshare.idle.hami-monitor-url) for clusters without sources of their own:
    // b would take it; a keeps its own Prometheus.
    ClusterRepository withDefaults = new ClusterRepository(jdbc, new Liveness(Duration.ofMinutes(5)),
        new IdleSourceDefaults(null, "http://hami-device-plugin-monitor.kube-system.svc:31992"));
    assertThat(withDefaults.idleReaping(b.clusterId()).orElseThrow().source()).isEqualTo("hami");
    assertThat(withDefaults.idleReaping(a.clusterId()).orElseThrow().note()).doesNotContain("default");

    String image = json.readTree(post("/api/v1/images", "{\"name\":\"" + NewTestIds.next("jupyter")
        + "\",\"reference\":\"registry.example.com/gshare/jupyter:2026.11\"}", admin).text()).get("id").asText();
    String onA = teamUser(Map.of("idle_timeout_minutes", 1));
    String onB = teamUser(Map.of("idle_timeout_minutes", 1, "max_runtime_minutes", 1, "max_runtime_action", "pause"));
    String offeringA = offering(MODEL_A);
    String offeringB = offering(MODEL_B);

    String busy = session(onA, offeringA, image);
    String idle = session(onA, offeringA, image);
    String waker = session(onA, offeringA, image);
    String unmeasured = session(onB, offeringB, image);
    Map<String, String> gpuOf = new ConcurrentHashMap<>();
    for (String s : List.of(busy, idle, waker)) {
      gpuOf.put(s, awaitRunning(s).at("/gpus/0/uuid").asText());
    }
    awaitRunning(unmeasured);
    assertThat(a.sim().setGpuMetrics(gpuOf.get(busy), 65, 0)).isTrue();

    // Watch every session's view until the idle one is paused, noting who was ever warned.
    Set<String> warned = ConcurrentHashMap.newKeySet();
    Set<String> woken = ConcurrentHashMap.newKeySet();
    await().atMost(Duration.ofSeconds(200)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
      for (String s : List.of(busy, idle, waker, unmeasured)) {
        JsonNode v = view(s);
        if (!absent(v.at("/session/idle/warning"))) {
          warned.add(s);
        }
      }
      if (warned.contains(waker) && woken.add(waker)) {
        // The user comes back after the warning: its GPU runs again.
        assertThat(a.sim().setGpuMetrics(gpuOf.get(waker), 80, 0)).isTrue();
      }
      assertThat(view(idle).at("/session/state").asText()).isEqualTo("paused");
    });

    JsonNode paused = view(idle);
    assertThat(warned).as("the idle session was warned before its pause").contains(idle);
    assertThat(paused.at("/session/state_reason").asText()).matches("idle for [12] minutes? by dcgm");
    assertThat(openWindows(idle)).as("billing closed").isZero();
    assertThat(jdbc.sql("select count(*) from audit_events where action = 'session.idle_paused' and object_id = :s")
        .param("s", idle).query(Integer.class).single()).isEqualTo(1);

    recordASweepThatPaused();

    // The busy one was never warned and still runs, measured by dcgm.
    JsonNode busyView = view(busy);
    assertThat(warned).doesNotContain(busy);
    assertThat(busyView.at("/session/state").asText()).isEqualTo("running");
    assertThat(busyView.at("/session/idle/source").asText()).isEqualTo("dcgm");
    assertThat(absent(busyView.at("/session/idle/idle_since"))).isTrue();
    assertThat(busyView.at("/session/idle/last_activity_at").asText()).isNotBlank();

    // The one that woke after its warning lost the warning and is left alone.
    assertThat(warned).contains(waker);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      JsonNode w = view(waker);
      assertThat(w.at("/session/state").asText()).isEqualTo("running");
      assertThat(absent(w.at("/session/idle/warning"))).isTrue();
      assertThat(absent(w.at("/session/idle/idle_since"))).isTrue();
    });

    // Cluster B has no source: never warned, never reaped for idleness, but its max runtime still pauses it.
    assertThat(warned).doesNotContain(unmeasured);
    await().atMost(Duration.ofSeconds(90)).untilAsserted(() ->
        assertThat(view(unmeasured).at("/session/state").asText()).isEqualTo("paused"));
    assertThat(view(unmeasured).at("/session/state_reason").asText()).isEqualTo("max runtime reached");

    for (String s : List.of(busy, idle, waker, unmeasured)) {
      send("DELETE", "/api/v1/sessions/" + s, null, admin);
    }
  }
}
