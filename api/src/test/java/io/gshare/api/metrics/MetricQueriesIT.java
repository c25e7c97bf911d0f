package io.gshare.api.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.HistoryRecorder;
import io.gshare.api.support.NewTestIds;
import io.gshare.api.support.PrometheusServer;
import io.gshare.client.ApiResponse;
import io.gshare.sim.kube.KubeCluster;
import io.temporal.client.WorkflowClient;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The named metric queries end to end: an attached simulated cluster, a real Prometheus (Debian's) scraping the
 * simulator's dcgm-exporter endpoint, each query run by the cluster's own worker process.
 */
class MetricQueriesIT extends ApiIntegrationTest {

  private static final String MODEL = "NVIDIA Metrics " + NewTestIds.next("m");
  private static final List<AutoCloseable> closing = new ArrayList<>();

  @Autowired ObjectMapper json;
  @Autowired WorkflowClient workflows;

  @AfterAll
  static void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private JsonNode ok(ApiResponse response) throws Exception {
    assertThat(response.status()).as(response.text()).isEqualTo(200);
    return json.readTree(response.text());
  }

  private static String since(Duration ago) {
    return URLEncoder.encode(Instant.now().minus(ago).toString(), StandardCharsets.UTF_8);
  }

  /** The last value of the series labelled with this card, or null. */
  private static Double last(JsonNode answer, String uuid) {
    for (JsonNode series : answer.path("series")) {
      if (uuid.equals(series.path("labels").path("UUID").asText())) {
        JsonNode points = series.path("points");
        return points.isEmpty() ? null : points.get(points.size() - 1).path("v").asDouble();
      }
    }
    return null;
  }

  @Test
  void adminsAskNamedQueriesThroughTheClustersWorkerAndNothingElseCrossesTheApi() throws Exception {
    String admin = adminToken();
    AttachedSimulator attached = attachSimulator("metrics", "metrics-gpu-0", MODEL, 2, 46068);
    KubeCluster sim = attached.sim();
    closing.add(sim);
    String clusterId = attached.clusterId();

    // Without a prometheus_url the cluster's queries say how to set one.
    ApiResponse none = get("/api/v1/metrics/gpu_utilization?cluster_id=" + clusterId, admin);
    assertThat(none.status()).as(none.text()).isEqualTo(409);
    assertThat(json.readTree(none.text()).path("detail").asText()).contains("prometheus_url");

    PrometheusServer prometheus = PrometheusServer.scraping("dcgm", URI.create(sim.dcgmMetricsUrl()));
    closing.add(prometheus);
    ok(send("PATCH", "/api/v1/clusters/" + clusterId, "{\"prometheus_url\":\"" + prometheus.url() + "\"}", admin));
    JsonNode node = json.readTree(get("/api/v1/nodes?cluster_id=" + clusterId, admin).text()).path("items").get(0);
    String nodeId = node.path("id").asText();
    List<String> uuids = new ArrayList<>();
    node.path("gpus").forEach(g -> uuids.add(g.path("uuid").asText()));
    assertThat(uuids).hasSize(2);
    assertThat(sim.setGpuMetrics(uuids.get(0), 73, 0)).isTrue();

    // One card: its series reaches 73 %, the other card is not in it.
    String card = "/api/v1/metrics/gpu_utilization?gpu_uuid=" + uuids.get(0) + "&step=15s&start=" + since(Duration.ofMinutes(5));
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(last(ok(get(card, admin)), uuids.get(0))).isEqualTo(73.0));
    JsonNode one = ok(get(card, admin));
    assertThat(one.path("unit").asText()).isEqualTo("percent");
    assertThat(one.path("cluster_id").asText()).isEqualTo(clusterId);
    assertThat(one.path("series")).hasSize(1);
    assertThat(one.path("query").asText()).contains("DCGM_FI_DEV_GPU_UTIL").contains(uuids.get(0));

    // The node: both its cards; the cluster: the same two.
    JsonNode byNode = ok(get("/api/v1/metrics/gpu_utilization?node_id=" + nodeId + "&step=15s&start=" + since(Duration.ofMinutes(5)), admin));
    assertThat(last(byNode, uuids.get(0))).isEqualTo(73.0);
    assertThat(last(byNode, uuids.get(1))).isEqualTo(0.0);
    assertThat(ok(get("/api/v1/metrics/gpu_utilization?cluster_id=" + clusterId + "&step=15s&start="
        + since(Duration.ofMinutes(5)), admin)).path("series")).hasSize(2);

    // Refused before anything is asked.
    String user = tokenFor(newUser("user"));
    assertThat(get(card, user).status()).isEqualTo(403);
    for (String bad : List.of("/api/v1/metrics/up?cluster_id=" + clusterId,
        "/api/v1/metrics/gpu_utilization",
        "/api/v1/metrics/gpu_utilization?cluster_id=" + clusterId + "&node_id=" + nodeId,
        "/api/v1/metrics/gpu_utilization?gpu_uuid=" + URLEncoder.encode("x\"}) or vector(1", StandardCharsets.UTF_8),
        "/api/v1/metrics/gpu_utilization?cluster_id=" + clusterId + "&step=7s",
        "/api/v1/metrics/gpu_utilization?cluster_id=" + clusterId + "&start=yesterday",
        "/api/v1/metrics/node_cpu?gpu_uuid=" + uuids.get(0))) {
      ApiResponse refused = get(bad, admin);
      assertThat(refused.status()).as(bad + " " + refused.text()).isEqualTo(422);
    }
    assertThat(get("/api/v1/metrics/gpu_utilization?node_id=nod_nosuchnode", admin).status()).isEqualTo(404);

    // A session's owner sees their session's cards; another user does not find the session.
    RunningSession running = startSession(MODEL);
    String session = running.id();
    String owner = running.ownerToken();
    String held = running.gpuUuid();
    JsonNode mine = ok(get("/api/v1/sessions/" + session + "/metrics?step=15s&start=" + since(Duration.ofMinutes(5)), owner));
    assertThat(mine.path("series")).allSatisfy(s -> assertThat(s.path("labels").path("UUID").asText()).isEqualTo(held));
    assertThat(get("/api/v1/sessions/" + session + "/metrics", user).status()).isEqualTo(404);
    assertThat(get("/api/v1/sessions/" + session + "/metrics?name=node_cpu", owner).status()).isEqualTo(422);
    assertThat(send("DELETE", "/api/v1/sessions/" + session, null, owner).status()).isEqualTo(200);

    workflows.listExecutions("WorkflowType = 'MetricQuery' AND GshareClusterId = '" + clusterId + "'").findFirst()
        .ifPresent(e -> HistoryRecorder.record(workflows, e.getExecution().getWorkflowId(), "metric-query"));
  }
}
