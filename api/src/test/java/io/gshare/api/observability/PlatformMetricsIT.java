package io.gshare.api.observability;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.InventoryFixture;
import io.gshare.api.support.NewTestIds;
import io.gshare.client.ApiResponse;
import io.gshare.core.credit.CreditLedger;
import java.math.BigDecimal;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** gShare's own metrics on the management port's /actuator/prometheus, as Prometheus scrapes them. */
class PlatformMetricsIT extends ApiIntegrationTest {

  @Autowired PlatformMetrics platform;
  @Autowired CreditLedger ledger;

  private String scrape() {
    ApiResponse metrics = getManagement("/actuator/prometheus");
    assertThat(metrics.status()).isEqualTo(200);
    return metrics.text();
  }

  /** The value of the sample with this name whose labels include every one of {@code labels} ({@code k="v"}). */
  private static double value(String body, String name, String... labels) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{([^}]*)\\} (\\S+)$").matcher(body);
    while (m.find()) {
      String found = m.group(1);
      boolean all = true;
      for (String label : labels) {
        all &= found.contains(label);
      }
      if (all) {
        return Double.parseDouble(m.group(2));
      }
    }
    return Double.NaN;
  }

  @Test
  void stateGaugesPlacementOutcomesAndInventoryWritesArePublished() {
    InventoryFixture fixture = new InventoryFixture(jdbc);
    String cluster = fixture.cluster();
    String clusterName = cluster.replace('_', '-');
    String model = "GPU Model " + NewTestIds.next("m");
    fixture.node(cluster, "exclusive", model, 1, 81559, 1, null);
    fixture.node(cluster, "exclusive", model, 1, 81559, 1, null);
    // A session of its own, so the gauge has a row whichever ITs ran before.
    fixture.session(newUser("user"), model, "exclusive");
    platform.refresh();
    String body = scrape();
    assertThat(value(body, "gshare_nodes", "cluster=\"" + clusterName + "\"", "liveness=\"ready\"")).isEqualTo(2.0);
    assertThat(body).contains("gshare_credits_charged_total").contains("# TYPE gshare_sessions gauge");

    // A create refused by placement is a decision with its outcome.
    String offering = fixture.offering("GPU Model nowhere " + NewTestIds.next("m"), "exclusive", 1, null, null, 1);
    String image = jdbc.sql("insert into images (id, name, reference) values (:id, :id, 'registry.example.com/x:1') returning id")
        .param("id", NewTestIds.next("img")).query(String.class).single();
    String user = newUser("user");
    ledger.grant(user, new BigDecimal("10"), NewTestIds.next("g"), "test", null);
    double before = value(scrape(), "gshare_placement_duration_seconds_count", "outcome=\"unserviceable\"");
    ApiResponse refused = post("/api/v1/sessions", "{\"offering_id\":\"" + offering + "\",\"image_id\":\""
        + image + "\"}", tokenFor(user));
    assertThat(refused.status()).as(refused.text()).isEqualTo(409);
    double after = value(scrape(), "gshare_placement_duration_seconds_count", "outcome=\"unserviceable\"");
    assertThat(after).isEqualTo((Double.isNaN(before) ? 0 : before) + 1);

    // An inventory report: its latency and the rows it wrote.
    String hostname = "metrics-" + NewTestIds.next("h").replace('_', '-');
    ApiResponse reported = post("/internal/v1/inventory", """
        {"cluster_id":"%s","apiserver_version":"v1.36.0","nodes":[{"hostname":"%s","ready":true,"schedulable":true,
         "gpu_mode":"exclusive","lossless_pause":false,"labels":{"gpu":"on"},"gpus":[{"uuid":"GPU-%s-0","index":0,
         "model":"%s","memory_mib":81559,"cores_percent":100,"split_count":1,"healthy":true}]}]}"""
        .formatted(cluster, hostname, hostname, model), operatorToken(cluster));
    assertThat(reported.status()).as(reported.text()).isEqualTo(200);
    body = scrape();
    assertThat(value(body, "gshare_inventory_report_duration_seconds_count")).isGreaterThanOrEqualTo(1);
    assertThat(value(body, "gshare_inventory_rows_written_total", "change=\"nodes_inserted\"")).isGreaterThanOrEqualTo(1);
  }
}
