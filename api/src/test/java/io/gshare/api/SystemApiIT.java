package io.gshare.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.client.ApiResponse;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** The round trip api → Temporal → cluster-worker → simulated apiserver, and the system view. */
class SystemApiIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;
  @Autowired Flyway flyway;

  @Test
  void healthzIsLivenessOnlyAndNeedsNoToken() {
    ApiResponse response = get("/healthz", null);
    assertThat(response.status()).isEqualTo(200);
    assertThat(response.text()).contains("\"status\":\"ok\"");
  }

  @Test
  void systemShowsSchemaTemporalAndThePollersOfEveryQueue() throws Exception {
    ApiResponse response = get("/api/v1/system", adminToken());
    assertThat(response.status()).isEqualTo(200);
    JsonNode body = json.readTree(response.text());

    assertThat(body.at("/database/schema_version").asText()).isEqualTo(flyway.info().current().getVersion().getVersion());
    assertThat(body.at("/database/pending_migrations").asInt()).isZero();
    assertThat(body.at("/temporal/reachable").asBoolean()).isTrue();
    JsonNode queues = body.get("task_queues");
    assertThat(queues.get(0).get("name").asText()).isEqualTo("gshare-control");
    assertThat(queues.get(0).get("polled").asBoolean()).isTrue();
    assertThat(queues.get(0).at("/pollers/0/role").asText()).isEqualTo("control");
    JsonNode sim = null;
    for (JsonNode queue : queues) {
      if (queue.get("name").asText().equals("gshare-cluster-clu_sim")) {
        sim = queue;
      }
    }
    assertThat(sim).as("the clu_sim queue").isNotNull();
    assertThat(sim.get("simulated").asBoolean()).isTrue();
    assertThat(sim.get("polled").asBoolean()).isTrue();
    assertThat(sim.get("source").asText()).isEqualTo("describe_task_queue");
    assertThat(sim.at("/pollers/0/identity").asText()).isEqualTo("test-worker/clu_sim");
  }

  @Test
  void connectionTestReachesTheClusterThroughItsWorker() throws Exception {
    String admin = adminToken();
    ApiResponse response = post("/api/v1/clusters/clu_sim/connection-test", "{}", admin);
    assertThat(response.status()).isEqualTo(200);
    JsonNode body = json.readTree(response.text());

    assertThat(body.get("status").asText()).isEqualTo("connected");
    assertThat(body.at("/checks/runtime_class_nvidia").asBoolean()).isTrue();
    assertThat(body.at("/checks/hami_device_plugin").asBoolean()).isTrue();
    assertThat(body.get("simulated").asBoolean()).isTrue();
    assertThat(body.get("gpu_count").asInt()).isEqualTo(12);
    assertThat(body.get("apiserver_version").asText())
        .isEqualTo(simulatedCluster().kubernetes().serverVersion());

    JsonNode cluster = json.readTree(get("/api/v1/clusters/clu_sim", admin).text());
    assertThat(cluster.get("status").asText()).isEqualTo("connected");
    assertThat(cluster.has("worker_last_seen_at")).isTrue();
    assertThat(cluster.has("kubeconfig_ciphertext")).isFalse();
  }

  @Test
  void metricsIncludeTheTemporalSdk() {
    post("/api/v1/clusters/clu_sim/connection-test", "{}", adminToken());
    // The SDK reports through its metrics scope on an interval.
    Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      ApiResponse response = getManagement("/actuator/prometheus");
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.text()).contains("temporal_request").contains("http_server_requests");
    });
  }
}
