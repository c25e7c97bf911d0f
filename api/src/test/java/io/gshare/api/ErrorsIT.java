package io.gshare.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.NewTestIds;
import io.gshare.client.ApiResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Every error, ours or Spring MVC's, is RFC 9457 problem+json with a stable code, and changes nothing. */
class ErrorsIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;

  @Test
  void anUnknownClusterIsANotFoundProblem() throws Exception {
    ApiResponse response = post("/api/v1/clusters/clu_nope/connection-test", "{}", adminToken());
    assertProblem(response, 404, "not_found");
    assertThat(json.readTree(response.text()).get("detail").asText()).contains("clu_nope");
  }

  @Test
  void anUnknownRouteAndAWrongMethodAreProblems() throws Exception {
    assertProblem(get("/api/v1/no-such-thing", adminToken()), 404, "not_found");
    assertProblem(send("DELETE", "/healthz", null, null), 405, "method_not_allowed");
  }

  @Test
  void malformedJsonUnknownFieldsAndInvalidValuesAreRefusedAndWriteNothing() throws Exception {
    String admin = adminToken();
    int users = jdbc.sql("select count(*) from users").query(Integer.class).single();

    assertProblem(post("/api/v1/users", "{not json", admin), 400, "bad_request");
    ApiResponse unknown = post("/api/v1/users", "{\"email\":\"x@example.com\",\"is_root\":true}", admin);
    assertProblem(unknown, 400, "bad_request");
    assertThat(json.readTree(unknown.text()).get("detail").asText()).contains("is_root");
    ApiResponse invalid = post("/api/v1/users", "{\"email\":\"not-an-email\"}", admin);
    assertProblem(invalid, 422, "validation_failed");
    assertThat(json.readTree(invalid.text()).at("/errors/0/field").asText()).isEqualTo("email");

    assertThat(jdbc.sql("select count(*) from users").query(Integer.class).single()).isEqualTo(users);
  }

  @Test
  void anOversizedBodyIsRefused() throws Exception {
    String huge = "{\"email\":\"a@example.com\",\"display_name\":\"" + "x".repeat(2 * 1024 * 1024) + "\"}";
    ApiResponse response = post("/api/v1/users", huge, adminToken());
    assertProblem(response, 413, "payload_too_large");
  }

  /** What the fault suite's schemathesis run (scenario 18) found answering 500 or another shape: each now a problem. */
  @Test
  void whatTheFuzzerFoundIsAnsweredInWordsAndWritesNothing() throws Exception {
    String admin = adminToken();
    String image = json.readTree(post("/api/v1/images", "{\"name\":\"" + NewTestIds.next("img")
        + "\",\"reference\":\"registry.example.com/gshare/jupyter:2026.11\"}", admin).text()).get("id").asText();
    int teams = jdbc.sql("select count(*) from teams").query(Integer.class).single();

    // A multipart Content-Type without a boundary: no endpoint takes multipart.
    assertProblem(send("POST", "/api/v1/teams", "{\"name\":\"t\"}", admin,
        Map.of("Content-Type", "multipart/form-data")), 415, "unsupported_media_type");
    // A PATCH that breaks the table's CHECK (a name of 1 to 100 characters): refused before the database.
    assertProblem(send("PATCH", "/api/v1/images/" + image, "{\"name\":\"\"}", admin), 422, "validation_failed");
    assertThat(json.readTree(get("/api/v1/images/" + image, admin).text()).get("name").asText()).isNotEmpty();
    // Values of another type than the document's, and text after the document.
    assertProblem(post("/api/v1/teams", "{\"name\":5}", admin), 400, "bad_request");
    assertProblem(post("/api/v1/credits/grants", "{\"user_id\":\"usr_x\",\"amount\":\"5\"}", admin), 400, "bad_request");
    assertProblem(post("/api/v1/teams", "{\"name\":\"t\"} {\"name\":\"u\"}", admin), 400, "bad_request");
    // A path the firewall refuses before any controller: the same problem shape, not Spring Boot's error body.
    assertProblem(get("/api/v1/images/%25", admin), 400, "bad_request");
    assertThat(jdbc.sql("select count(*) from teams").query(Integer.class).single()).isEqualTo(teams);
  }

  private void assertProblem(ApiResponse response, int status, String code) throws Exception {
    assertThat(response.status()).as(response.text()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
        v -> assertThat(v).startsWith("application/problem+json"));
    JsonNode body = json.readTree(response.text());
    assertThat(body.get("status").asInt()).isEqualTo(status);
    assertThat(body.get("code").asText()).isEqualTo(code);
    assertThat(body.get("type").asText()).isEqualTo("urn:gshare:problem:" + code);
    assertThat(body.get("title").asText()).isNotBlank();
  }
}
