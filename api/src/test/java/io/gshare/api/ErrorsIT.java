package io.gshare.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Every error, ours or Spring MVC's, is RFC 9457 problem+json with a stable code, and changes nothing. */
class ErrorsIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;

  @Test
  void anUnknownClusterIsANotFoundProblem() throws Exception {
    HttpResponse<String> response = post("/api/v1/clusters/clu_nope/connection-test", "{}", adminToken());
    assertProblem(response, 404, "not_found");
    assertThat(json.readTree(response.body()).get("detail").asText()).contains("clu_nope");
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
    HttpResponse<String> unknown = post("/api/v1/users", "{\"email\":\"x@example.com\",\"is_root\":true}", admin);
    assertProblem(unknown, 400, "bad_request");
    assertThat(json.readTree(unknown.body()).get("detail").asText()).contains("is_root");
    HttpResponse<String> invalid = post("/api/v1/users", "{\"email\":\"not-an-email\"}", admin);
    assertProblem(invalid, 422, "validation_failed");
    assertThat(json.readTree(invalid.body()).at("/errors/0/field").asText()).isEqualTo("email");

    assertThat(jdbc.sql("select count(*) from users").query(Integer.class).single()).isEqualTo(users);
  }

  @Test
  void anOversizedBodyIsRefused() throws Exception {
    String huge = "{\"email\":\"a@example.com\",\"display_name\":\"" + "x".repeat(2 * 1024 * 1024) + "\"}";
    HttpResponse<String> response = post("/api/v1/users", huge, adminToken());
    assertProblem(response, 413, "payload_too_large");
  }

  private void assertProblem(HttpResponse<String> response, int status, String code) throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
        v -> assertThat(v).startsWith("application/problem+json"));
    JsonNode body = json.readTree(response.body());
    assertThat(body.get("status").asInt()).isEqualTo(status);
    assertThat(body.get("code").asText()).isEqualTo(code);
    assertThat(body.get("type").asText()).isEqualTo("urn:gshare:problem:" + code);
    assertThat(body.get("title").asText()).isNotBlank();
  }
}
