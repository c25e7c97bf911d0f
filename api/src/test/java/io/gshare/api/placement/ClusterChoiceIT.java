package io.gshare.api.placement;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.InventoryFixture;
import io.gshare.api.support.NewTestIds;
import io.gshare.client.ApiResponse;
import io.gshare.core.credit.CreditLedger;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Choosing a cluster (the console's cluster selector): availability answers per attached cluster, and with
 * {@code cluster_id} both availability and session create stay on that cluster.
 */
class ClusterChoiceIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;
  @Autowired CreditLedger ledger;

  @Test
  void availabilityAnswersPerClusterAndClusterIdKeepsPlacementOnIt() throws Exception {
    InventoryFixture fixture = new InventoryFixture(jdbc);
    String model = "GPU Model " + NewTestIds.next("m");
    String withCards = fixture.cluster();
    String without = fixture.cluster();
    String node = fixture.node(withCards, "exclusive", model, 2, 81559, 1, null);
    fixture.node(without, "fractional", model, 1, 81559, 4, null); // the model, but only as slices
    String offering = fixture.offering(model, "exclusive", 1, null, null, 2);
    String user = newUser("user");
    ledger.grant(user, new BigDecimal("100"), NewTestIds.next("g"), "test", null);
    String token = tokenFor(user);

    JsonNode any = ok(get("/api/v1/availability?offering_id=" + offering, token));
    assertThat(any.path("cluster_id").asText()).isEqualTo(withCards);
    Map<String, JsonNode> perCluster = new HashMap<>();
    any.path("clusters").forEach(c -> perCluster.put(c.path("cluster_id").asText(), c));
    assertThat(perCluster.get(withCards).path("available").asBoolean()).isTrue();
    assertThat(perCluster.get(withCards).path("hostname").asText()).isEqualTo(node.replace('_', '-'));
    assertThat(perCluster.get(without).path("available").asBoolean()).isFalse();
    assertThat(perCluster.get(without).path("problem").asText()).isEqualTo("unserviceable");
    assertThat(perCluster.get(without).path("detail").asText()).contains("on cluster " + without);

    JsonNode chosen = ok(get("/api/v1/availability?offering_id=" + offering + "&cluster_id=" + withCards, token));
    assertThat(chosen.path("clusters")).hasSize(1);
    ApiResponse elsewhere = get("/api/v1/availability?offering_id=" + offering + "&cluster_id=" + without, token);
    assertThat(elsewhere.status()).as(elsewhere.text()).isEqualTo(409);
    assertThat(json.readTree(elsewhere.text()).path("code").asText()).isEqualTo("unserviceable");
    ApiResponse unknown = get("/api/v1/availability?offering_id=" + offering + "&cluster_id=clu_nosuch", token);
    assertThat(unknown.status()).as(unknown.text()).isEqualTo(422);

    // A create pinned to the cluster without whole cards is refused, although the other one has a free card,
    // and leaves nothing behind; pinned to an unknown cluster it is a 422.
    String image = json.readTree(post("/api/v1/images", "{\"name\":\"" + NewTestIds.next("img")
        + "\",\"reference\":\"registry.example.com/gshare/jupyter:2026.11\"}", adminToken()).text()).get("id").asText();
    ApiResponse refused = post("/api/v1/sessions", """
        {"offering_id":"%s","image_id":"%s","cluster_id":"%s"}""".formatted(offering, image, without), token);
    assertThat(refused.status()).as(refused.text()).isEqualTo(409);
    assertThat(json.readTree(refused.text()).path("detail").asText()).contains(without);
    ApiResponse nowhere = post("/api/v1/sessions", """
        {"offering_id":"%s","image_id":"%s","cluster_id":"clu_nosuch"}""".formatted(offering, image), token);
    assertThat(nowhere.status()).as(nowhere.text()).isEqualTo(422);
    assertThat(json.readTree(nowhere.text()).path("detail").asText()).contains("clu_nosuch");
    assertThat(jdbc.sql("select count(*) from sessions where user_id = :u").param("u", user).query(Integer.class).single())
        .isZero();
    assertThat(jdbc.sql("select count(*) from allocations where node_id = :n")
        .param("n", node).query(Integer.class).single()).isZero();
  }

  private JsonNode ok(ApiResponse response) throws Exception {
    assertThat(response.status()).as(response.text()).isEqualTo(200);
    return json.readTree(response.text());
  }
}
