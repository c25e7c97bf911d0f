package io.gshare.api.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.AlertReceiver;
import io.gshare.api.support.AlertReceiver.Received;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.InventoryFixture;
import io.gshare.api.support.NewTestIds;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Admin alerts reach someone: a node going offline is delivered to a real webhook receiver as Alertmanager's webhook
 * sends it, retried while the receiver fails, once per outage, and resolved when the node is reported again; the
 * sweep and the delivery are Temporal Schedules.
 */
class AlertsIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;
  @Autowired ScheduleClient schedules;

  private List<JsonNode> alertsOf(String nodeId) throws Exception {
    List<JsonNode> mine = new ArrayList<>();
    json.readTree(get("/api/v1/alerts?limit=1000", adminToken()).text()).path("items").forEach(a -> {
      if (nodeId.equals(a.path("object_id").asText())) {
        mine.add(a);
      }
    });
    return mine;
  }

  @Test
  void anOfflineNodeIsDeliveredOncePerOutageWithRetriesAndResolvedWhenItReturns() throws Exception {
    InventoryFixture fixture = new InventoryFixture(jdbc);
    String cluster = fixture.cluster();
    String node = fixture.node(cluster, "exclusive", "GPU Model " + NewTestIds.next("m"), 1, 81559, 1, null);
    AlertReceiver.failNext(node, 2);

    // The worker stops reporting: past the stale time, the sweep raises the alert; the receiver fails twice.
    jdbc.sql("update clusters set inventory_at = now() - interval '1 minute' where id = :c").param("c", cluster).update();
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(AlertReceiver.about(node))
        .extracting(Received::answered).containsExactly(503, 503, 200));
    Received firing = AlertReceiver.about(node).get(2);
    assertThat(firing.status()).isEqualTo("firing");
    JsonNode alert = firing.body().path("alerts").path(0);
    assertThat(firing.body().path("version").asText()).isEqualTo("4");
    assertThat(alert.path("labels").path("alertname").asText()).isEqualTo("NodeOffline");
    assertThat(alert.path("labels").path("cluster").asText()).isEqualTo(cluster);
    assertThat(alert.path("endsAt").asText()).isEqualTo("0001-01-01T00:00:00Z");
    assertThat(alert.path("annotations").path("summary").asText()).contains("has not been reported");
    // Once per outage: later sweeps and deliveries send nothing more about it.
    await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(AlertReceiver.about(node)).hasSize(3));
    List<JsonNode> listed = alertsOf(node);
    assertThat(listed).hasSize(1);
    assertThat(listed.get(0).path("status").asText()).isEqualTo("firing");
    assertThat(listed.get(0).path("delivered_status").asText()).isEqualTo("firing");

    // Reported again (as the inventory writer leaves it): resolved, and the resolution delivered.
    jdbc.sql("update clusters set inventory_at = now() + interval '1 hour' where id = :c").param("c", cluster).update();
    jdbc.sql("update nodes set offline_alerted_at = null where id = :n").param("n", node).update();
    await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(AlertReceiver.about(node))
        .extracting(Received::status).containsExactly("firing", "firing", "firing", "resolved"));
    Received resolved = AlertReceiver.about(node).get(3);
    assertThat(resolved.body().path("alerts").path(0).path("endsAt").asText()).isNotEqualTo("0001-01-01T00:00:00Z");
    assertThat(resolved.body().path("alerts").path(0).path("fingerprint").asText())
        .isEqualTo(alert.path("fingerprint").asText());
    assertThat(alertsOf(node)).singleElement().satisfies(a -> {
      assertThat(a.path("status").asText()).isEqualTo("resolved");
      assertThat(a.path("ends_at").isMissingNode() || a.path("ends_at").isNull()).isFalse();
    });

    // A second outage is a second alert.
    jdbc.sql("update clusters set inventory_at = now() - interval '1 minute' where id = :c").param("c", cluster).update();
    await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(alertsOf(node)).hasSize(2));
    await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(AlertReceiver.about(node)).hasSize(5));
    assertThat(AlertReceiver.about(node).get(4).status()).isEqualTo("firing");
  }

  /** Not a timer in each api process: one pass at a time, every gshare.alerts.delivery-interval (1 s here). */
  @Test
  void deliveryIsATemporalSchedule() {
    Schedule delivery = schedules.getHandle(WorkflowIds.ALERT_DELIVERY).describe().getSchedule();
    assertThat(delivery.getSpec().getIntervals()).extracting(ScheduleIntervalSpec::getEvery)
        .containsExactly(Duration.ofSeconds(1));
    assertThat(((ScheduleActionStartWorkflow) delivery.getAction()).getWorkflowType()).isEqualTo("AlertDelivery");
    assertThat(delivery.getPolicy().getOverlap()).isEqualTo(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP);
  }

  @Test
  void alertsAreForAdminsAndABadStatusIsRefused() {
    assertThat(get("/api/v1/alerts", tokenFor(newUser("user"))).status()).isEqualTo(403);
    assertThat(get("/api/v1/alerts?status=burning", adminToken()).status()).isEqualTo(422);
    assertThat(get("/api/v1/alerts?status=firing", adminToken()).status()).isEqualTo(200);
  }
}
