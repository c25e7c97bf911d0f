package io.gshare.api.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gshare.api.support.AlertReceiver;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.HistoryRecorder;
import io.gshare.api.support.NewTestIds;
import io.gshare.api.support.PrometheusServer;
import io.gshare.sim.kube.KubeCluster;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.kube.Annotations;
import io.temporal.client.WorkflowClient;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A fatal Xid on a simulated card, read by the cluster's worker through a real Prometheus scraping the simulator's
 * dcgm-exporter endpoint: the card is cordoned, its session paused with the reason, the alert delivered once; an
 * admin's uncordon resolves it. A node-level Xid (79) drains the node.
 */
class XidIT extends ApiIntegrationTest {

  private static final String MODEL = "NVIDIA Xid " + NewTestIds.next("m");
  private static final List<AutoCloseable> closing = new ArrayList<>();

  @Autowired ObjectMapper json;
  @Autowired WorkflowClient workflows;

  @AfterAll
  static void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private void setXid(KubeCluster sim, String uuid, int xid) {
    assertThat(sim.setGpuMetrics(uuid, 50, xid)).as(uuid).isTrue();
  }

  private boolean cordoned(String uuid) {
    return jdbc.sql("select cordoned from gpu_devices where uuid = :u").param("u", uuid).query(Boolean.class).single();
  }

  @Test
  void aFatalXidCordonsTheCardPausesItsSessionAndAlertsOnceAndANodeLevelOneDrainsTheNode() throws Exception {
    String admin = adminToken();
    AttachedSimulator attached = attachSimulator("xid", "xid-gpu-0", MODEL, 2, 46068);
    KubeCluster sim = attached.sim();
    closing.add(sim);
    String clusterId = attached.clusterId();
    PrometheusServer prometheus = PrometheusServer.scraping("dcgm", URI.create(sim.dcgmMetricsUrl()));
    closing.add(prometheus);
    assertThat(send("PATCH", "/api/v1/clusters/" + clusterId, "{\"prometheus_url\":\"" + prometheus.url() + "\"}", admin)
        .status()).isEqualTo(200);

    RunningSession running = startSession(MODEL);
    String session = running.id();
    String owner = running.ownerToken();
    String card = running.gpuUuid();

    // A correctable code is left alone; a double-bit ECC error (48) takes the card out.
    setXid(sim, card, 31);
    Thread.sleep(4000);
    assertThat(cordoned(card)).isFalse();
    setXid(sim, card, 48);
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      JsonNode view = json.readTree(get("/api/v1/sessions/" + session, owner).text());
      assertThat(view.at("/session/state").asText()).as(view.toString()).isEqualTo("paused");
      assertThat(view.at("/session/state_reason").asText()).contains("Xid 48").contains("double-bit ECC");
    });
    assertThat(cordoned(card)).isTrue();
    await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(AlertReceiver.about(card))
        .extracting(AlertReceiver.Received::status).containsExactly("firing"));
    assertThat(AlertReceiver.about(card).get(0).body().at("/alerts/0/labels/alertname").asText()).isEqualTo("GpuXidFatal");
    // The worker keeps reporting the Xid: still one alert, one audit event.
    Thread.sleep(5000);
    assertThat(AlertReceiver.about(card)).hasSize(1);
    assertThat(json.readTree(get("/api/v1/audit?action=gpu.xid_fatal&object_id=" + card, admin).text()).get("items"))
        .hasSize(1);

    // Repaired: an admin uncordons the card and the alert resolves, though the exporter's gauge still holds 48 (it
    // does until the driver reloads): the same stale code does not cordon the card again.
    assertThat(post("/api/v1/gpus/" + card + "/uncordon", "{}", admin).status()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(AlertReceiver.about(card))
        .extracting(AlertReceiver.Received::status).containsExactly("firing", "resolved"));
    Thread.sleep(4000);
    assertThat(cordoned(card)).isFalse();
    setXid(sim, card, 0);

    // A card fallen off the bus (79) is the node's problem: the node is drained.
    String other = json.readTree(get("/api/v1/nodes?cluster_id=" + clusterId, admin).text()).path("items").get(0)
        .path("gpus").findValues("uuid").stream().map(JsonNode::asText).filter(u -> !u.equals(card)).findFirst().orElseThrow();
    String nodeId = json.readTree(get("/api/v1/nodes?cluster_id=" + clusterId, admin).text()).path("items").get(0)
        .path("id").asText();
    setXid(sim, other, 79);
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(json.readTree(
        get("/api/v1/nodes?cluster_id=" + clusterId, admin).text()).path("items").get(0).path("drain_state").asText())
        .isIn("draining", "drained"));
    assertThat(cordoned(other)).isTrue();
    assertThat(json.readTree(get("/api/v1/operations/node-drain-" + nodeId, admin).text()).path("status").asText())
        .isIn("running", "completed");
    // Still one alert for the card, however often the worker reports its Xid.
    Thread.sleep(4000);
    assertThat(AlertReceiver.about(other)).extracting(AlertReceiver.Received::status).containsExactly("firing");
    assertThat(send("DELETE", "/api/v1/sessions/" + session, null, owner).status()).isEqualTo(200);
    // A session paused off a faulty card (the gpuFault signal), then ended: its history must replay.
    await().atMost(Duration.ofSeconds(30)).until(() -> "terminated".equals(
        json.readTree(get("/api/v1/sessions/" + session, owner).text()).at("/session/state").asText()));
    HistoryRecorder.record(workflows, WorkflowIds.session(session),
        "session-gpu-fault");
  }

  @Test
  void aCardHamisDevicePluginTurnsUnhealthyIsCordonedAndItsSessionPausedOnce() throws Exception {
    String admin = adminToken();
    String model = "NVIDIA Hami " + NewTestIds.next("m");
    AttachedSimulator attached = attachSimulator("hami", "hami-gpu-0", model, 2, 46068);
    KubeCluster sim = attached.sim();
    closing.add(sim);
    RunningSession running = startSession(model);
    String card = running.gpuUuid();

    // What HAMi's device plugin does on a critical Xid from NVML: the card's health in its register annotation.
    try (var client = sim.newClient()) {
      var node = client.nodes().withName("hami-gpu-0").get();
      String key = Annotations.HAMI_NODE_REGISTER;
      ArrayNode devices =
          (ArrayNode) json.readTree(node.getMetadata().getAnnotations().get(key));
      devices.forEach(d -> {
        if (d.path("id").asText().equals(card)) {
          ((ObjectNode) d).put("health", false);
        }
      });
      // A merge patch: edit() would send the resourceVersion it read, which KWOK's status writes make stale (409).
      ObjectNode patch = json.createObjectNode();
      patch.putObject("metadata").putObject("annotations").put(key, devices.toString());
      client.nodes().withName("hami-gpu-0").patch(PatchContext.of(
          PatchType.JSON_MERGE), patch.toString());
    }
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      JsonNode view = json.readTree(get("/api/v1/sessions/" + running.id(), running.ownerToken()).text());
      assertThat(view.at("/session/state").asText()).as(view.toString()).isEqualTo("paused");
      assertThat(view.at("/session/state_reason").asText()).contains("unhealthy by HAMi");
    });
    assertThat(cordoned(card)).isTrue();
    await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(AlertReceiver.about(card))
        .extracting(AlertReceiver.Received::status).containsExactly("firing"));
    // The annotation stays unhealthy in every report: no second alert, no second audit event.
    Thread.sleep(5000);
    assertThat(AlertReceiver.about(card)).hasSize(1);
    assertThat(json.readTree(get("/api/v1/audit?action=gpu.xid_fatal&object_id=" + card, admin).text()).get("items"))
        .hasSize(1);
    assertThat(send("DELETE", "/api/v1/sessions/" + running.id(), null, running.ownerToken()).status()).isEqualTo(200);
  }
}
