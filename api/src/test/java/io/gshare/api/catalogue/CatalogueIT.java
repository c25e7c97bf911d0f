package io.gshare.api.catalogue;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.InventoryFixture;
import io.gshare.api.support.NewTestIds;
import io.gshare.client.ApiResponse;
import io.gshare.core.credit.CreditLedger;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Offerings, images, node pools, policies and credits through the API: validation writes nothing. */
class CatalogueIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;
  @Autowired CreditLedger ledger;
  private String admin;

  @BeforeEach
  void admin() {
    admin = adminToken();
  }

  private int count(String table) {
    return jdbc.sql("select count(*) from " + table).query(Integer.class).single();
  }

  private String code(ApiResponse response) throws Exception {
    return json.readTree(response.text()).path("code").asText();
  }

  @Test
  void offeringsAreValidatedAndMarkTheModelsClustersHave() throws Exception {
    String model = "Catalogue GPU " + NewTestIds.next("m");
    InventoryFixture fixture = new InventoryFixture(jdbc);
    fixture.node(fixture.cluster(), "fractional", model, 1, 40960, 10, null);
    int before = count("offerings");

    for (String bad : new String[] {
        "{\"name\":\"x\",\"gpu_model\":\"m\",\"mode\":\"exclusive\",\"price_per_hour\":1}",
        "{\"name\":\"x\",\"gpu_model\":\"m\",\"mode\":\"fractional\",\"gpu_count\":1,\"price_per_hour\":1}",
        "{\"name\":\"x\",\"gpu_model\":\"m\",\"mode\":\"shared\",\"gpu_count\":1,\"price_per_hour\":1}",
        "{\"name\":\"x\",\"gpu_model\":\"m\",\"mode\":\"exclusive\",\"gpu_count\":1,\"price_per_hour\":-1}",
        "{\"name\":\"x\",\"gpu_model\":\"m\",\"mode\":\"fractional\",\"gpumem_mib\":1024,\"gpucores_percent\":101,\"price_per_hour\":1}"}) {
      ApiResponse response = post("/api/v1/offerings", bad, admin);
      assertThat(response.status()).as(bad).isEqualTo(422);
      assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
    }
    assertThat(count("offerings")).isEqualTo(before);

    String body = "{\"name\":\"" + NewTestIds.next("slice") + "\",\"gpu_model\":\"" + model
        + "\",\"mode\":\"fractional\",\"gpumem_mib\":10240,\"gpucores_percent\":25,\"price_per_hour\":1.5}";
    ApiResponse created = post("/api/v1/offerings", body, admin);
    assertThat(created.status()).as(created.text()).isEqualTo(201);
    JsonNode offering = json.readTree(created.text());
    assertThat(offering.get("cluster_has").asBoolean()).isTrue();
    assertThat(post("/api/v1/offerings", body, admin).status()).isEqualTo(409);
    assertThat(post("/api/v1/offerings", body.replace("slice", "other"), tokenFor(newUser("user"))).status()).isEqualTo(403);

    String id = offering.get("id").asText();
    assertThat(send("PATCH", "/api/v1/offerings/" + id, "{\"active\":false}", admin).status()).isEqualTo(200);
    String user = tokenFor(newUser("user"));
    assertThat(get("/api/v1/offerings/" + id, user).status()).isEqualTo(404);
    // Inactive: its model, which has cards, is listed as unoffered for admins.
    assertThat(json.readTree(get("/api/v1/offerings", admin).text()).get("unoffered_models"))
        .anySatisfy(m -> assertThat(m.asText()).isEqualTo(model));
    assertThat(send("DELETE", "/api/v1/offerings/" + id, null, admin).status()).isEqualTo(204);
  }

  @Test
  void imagesDefaultToJupyterAndRefuseBadReferences() throws Exception {
    int before = count("images");
    assertThat(post("/api/v1/images", "{\"name\":\"bad\",\"reference\":\"has space\"}", admin).status()).isEqualTo(422);
    assertThat(post("/api/v1/images", "{\"name\":\"bad\",\"reference\":\"x\",\"port\":70000}", admin).status()).isEqualTo(422);
    assertThat(count("images")).isEqualTo(before);

    String name = NewTestIds.next("jupyter");
    JsonNode image = json.readTree(post("/api/v1/images",
        "{\"name\":\"" + name + "\",\"reference\":\"registry.example.com/gshare/jupyter:2026.11\"}", admin).text());
    assertThat(image.get("port").asInt()).isEqualTo(8888);
    assertThat(image.get("path").asText()).isEqualTo("/");
    assertThat(json.readTree(send("PATCH", "/api/v1/images/" + image.get("id").asText(), "{\"port\":8080}", admin).text())
        .get("port").asInt()).isEqualTo(8080);
    assertThat(get("/api/v1/images", tokenFor(newUser("user"))).text()).contains(name);
  }

  @Test
  void nodePoolsTakeNodesAndGiveThemBack() throws Exception {
    InventoryFixture fixture = new InventoryFixture(jdbc);
    String node = fixture.node(fixture.cluster(), "exclusive", "Pool GPU", 1, 1000, 1, null);
    String team = json.readTree(post("/api/v1/teams", "{\"name\":\"" + NewTestIds.next("vision") + "\"}", admin).text())
        .get("id").asText();
    assertThat(post("/api/v1/node-pools", "{\"name\":\"p\",\"team_id\":\"team_nosuch\"}", admin).status()).isEqualTo(422);

    JsonNode pool = json.readTree(post("/api/v1/node-pools",
        "{\"name\":\"" + NewTestIds.next("pool") + "\",\"team_id\":\"" + team + "\"}", admin).text());
    String id = pool.get("id").asText();
    assertThat(send("PUT", "/api/v1/node-pools/" + id + "/nodes", "{\"node_ids\":[\"nod_nosuch\"]}", admin).status())
        .isEqualTo(422);
    JsonNode filled = json.readTree(send("PUT", "/api/v1/node-pools/" + id + "/nodes",
        "{\"node_ids\":[\"" + node + "\"]}", admin).text());
    assertThat(filled.get("node_ids").get(0).asText()).isEqualTo(node);
    assertThat(json.readTree(get("/api/v1/nodes?pool_id=" + id, admin).text()).get("items")).hasSize(1);

    assertThat(send("DELETE", "/api/v1/node-pools/" + id, null, admin).status()).isEqualTo(204);
    assertThat(jdbc.sql("select pool_id from nodes where id = :n").param("n", node).query(String.class).optional())
        .isEmpty();
  }

  @Test
  void policiesHaveADefaultAndTeamOverrides() throws Exception {
    int before = count("policies");
    assertThat(send("PUT", "/api/v1/policies/default", "{\"overflow\":\"everywhere\"}", admin).status()).isEqualTo(422);
    assertThat(send("PUT", "/api/v1/policies/default", "{\"max_concurrent_sessions\":-1}", admin).status()).isEqualTo(422);
    assertThat(count("policies")).isEqualTo(before);
    // Saving the default as it is, twice: one default row, updated in place.
    JsonNode current = json.readTree(get("/api/v1/policies/default", admin).text());
    Map<String, Object> same = new LinkedHashMap<>();
    for (String field : List.of("max_concurrent_sessions", "max_runtime_minutes", "max_runtime_action",
        "idle_timeout_minutes", "overflow", "placement", "min_balance_to_start")) {
      if (current.hasNonNull(field)) {
        same.put(field, json.treeToValue(current.get(field), Object.class));
      }
    }
    for (int i = 0; i < 2; i++) {
      ApiResponse saved = send("PUT", "/api/v1/policies/default", json.writeValueAsString(same), admin);
      assertThat(saved.status()).as(saved.text()).isEqualTo(200);
    }
    assertThat(jdbc.sql("select count(*) from policies where team_id is null").query(Integer.class).single()).isEqualTo(1);

    String team = json.readTree(post("/api/v1/teams", "{\"name\":\"" + NewTestIds.next("nlp") + "\"}", admin).text())
        .get("id").asText();
    JsonNode inherited = json.readTree(get("/api/v1/teams/" + team + "/policy", admin).text());
    assertThat(inherited.has("team_id")).isFalse();
    JsonNode own = json.readTree(send("PUT", "/api/v1/teams/" + team + "/policy",
        "{\"max_concurrent_sessions\":2,\"overflow\":\"none\",\"max_runtime_minutes\":480}", admin).text());
    assertThat(own.get("team_id").asText()).isEqualTo(team);
    assertThat(own.get("overflow").asText()).isEqualTo("none");
    JsonNode changed = json.readTree(send("PUT", "/api/v1/teams/" + team + "/policy",
        "{\"max_concurrent_sessions\":3,\"overflow\":\"shared_pool\"}", admin).text());
    assertThat(changed.get("max_concurrent_sessions").asInt()).isEqualTo(3);
    assertThat(jdbc.sql("select count(*) from policies where team_id = :t").param("t", team).query(Integer.class).single())
        .isEqualTo(1);
    assertThat(send("DELETE", "/api/v1/teams/" + team + "/policy", null, admin).status()).isEqualTo(204);
    assertThat(get("/api/v1/teams/" + team + "/policy", tokenFor(newUser("user"))).status()).isEqualTo(403);
  }

  @Test
  void grantsChargesSettlementsAndRefundsAreEachOneIdempotentCall() throws Exception {
    String user = newUser("user");
    String key = NewTestIds.next("grant");
    String grantTemplate = "{\"user_id\":\"" + user + "\",\"amount\":%s,\"idempotency_key\":\"" + key + "\"}";
    String grant = grantTemplate.formatted("100");
    assertThat(post("/api/v1/credits/grants", grant, admin).status()).isEqualTo(201);
    ApiResponse retried = post("/api/v1/credits/grants", grant, admin);
    assertThat(retried.status()).isEqualTo(200);
    assertThat(json.readTree(retried.text()).get("created").asBoolean()).isFalse();
    assertThat(post("/api/v1/credits/grants", grantTemplate.formatted("500"), admin).status()).isEqualTo(409);
    assertThat(post("/api/v1/credits/grants", "{\"user_id\":\"" + user + "\",\"amount\":0}", admin).status()).isEqualTo(422);
    assertThat(post("/api/v1/credits/grants", grant, tokenFor(user)).status()).isEqualTo(403);

    String account = ledger.accountOf(user);
    String session = new InventoryFixture(jdbc).session(user, "m", "exclusive");
    Instant minute = Instant.parse("2026-12-02T10:05:30Z");
    assertThat(ledger.charge(session, account, minute, new BigDecimal("0.5")).created()).isTrue();
    assertThat(ledger.charge(session, account, minute, new BigDecimal("0.5")).created()).isFalse();
    assertThat(ledger.settle(session, account, "bw_1", new BigDecimal("0.2")).created()).isTrue();
    assertThat(ledger.settle(session, account, "bw_1", new BigDecimal("0.2")).created()).isFalse();
    assertThat(ledger.refund(session, account, new BigDecimal("0.7"), "failed to start", "r1").created()).isTrue();
    assertThat(ledger.refund(session, account, new BigDecimal("0.7"), "failed to start", "r1").created()).isFalse();

    JsonNode credits = json.readTree(get("/api/v1/credits", tokenFor(user)).text());
    assertThat(new BigDecimal(credits.get("balance").asText())).isEqualByComparingTo("100");
    assertThat(credits.get("entries")).hasSize(4);
    BigDecimal sum = jdbc.sql("select sum(amount) from credit_ledger where account_id = :a").param("a", account)
        .query(BigDecimal.class).single();
    assertThat(sum).isEqualByComparingTo(new BigDecimal(credits.get("balance").asText()));
    assertThat(get("/api/v1/credits?user_id=" + newUser("user"), tokenFor(user)).status()).isEqualTo(403);
  }
}
