package io.gshare.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/** Every error, ours or Spring MVC's, is RFC 9457 problem+json with a stable code. */
class ErrorsIT extends ApiIntegrationTest {

  @LocalServerPort int port;
  @Autowired ObjectMapper json;
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void anUnknownClusterIsANotFoundProblem() throws Exception {
    HttpResponse<String> response = send("POST", "/api/v1/clusters/clu_nope/connection-test", "{}");
    assertProblem(response, 404, "not_found");
    assertThat(json.readTree(response.body()).get("detail").asText()).contains("clu_nope");
  }

  @Test
  void anUnknownRouteAndAWrongMethodAreProblems() throws Exception {
    assertProblem(send("GET", "/api/v1/no-such-thing", null), 404, "not_found");
    assertProblem(send("DELETE", "/healthz", null), 405, "method_not_allowed");
  }

  @Test
  void malformedJsonIsABadRequestProblem() throws Exception {
    HttpResponse<String> response = send("POST", "/api/v1/clusters/clu_sim/connection-test", "{not json");
    assertProblem(response, 400, "bad_request");
  }

  private void assertProblem(HttpResponse<String> response, int status, String code) throws Exception {
    assertThat(response.statusCode()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
        v -> assertThat(v).startsWith("application/problem+json"));
    JsonNode body = json.readTree(response.body());
    assertThat(body.get("status").asInt()).isEqualTo(status);
    assertThat(body.get("code").asText()).isEqualTo(code);
    assertThat(body.get("type").asText()).isEqualTo("urn:gshare:problem:" + code);
    assertThat(body.get("title").asText()).isNotBlank();
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
