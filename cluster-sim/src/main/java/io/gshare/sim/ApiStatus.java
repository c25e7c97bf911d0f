package io.gshare.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code meta/v1 Status} bodies a real apiserver answers, for the handlers the simulator adds. */
final class ApiStatus {

  private static final ObjectMapper JSON = new ObjectMapper();

  private ApiStatus() {}

  /** {@code status: Success} with {@code code}, as a create that returns no object answers. */
  static MockResponse success(int code) {
    Map<String, Object> body = base("Success");
    body.put("code", code);
    return respond(code, body);
  }

  /**
   * {@code status: Failure}; {@code reason} and {@code details} are left out when null, as the
   * apiserver leaves out empty fields.
   */
  static MockResponse failure(int code, String reason, String message, Map<String, Object> details) {
    Map<String, Object> body = base("Failure");
    body.put("message", message);
    if (reason != null) {
      body.put("reason", reason);
    }
    if (details != null) {
      body.put("details", details);
    }
    body.put("code", code);
    return respond(code, body);
  }

  /** {@code pods "x" not found}, as the apiserver words it. */
  static MockResponse notFound(String plural, String name) {
    return failure(404, "NotFound", plural + " \"" + name + "\" not found", Map.of("name", name, "kind", plural));
  }

  private static Map<String, Object> base(String status) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("kind", "Status");
    body.put("apiVersion", "v1");
    body.put("metadata", Map.of());
    body.put("status", status);
    return body;
  }

  private static MockResponse respond(int code, Map<String, Object> body) {
    try {
      return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
          .setBody(JSON.writeValueAsString(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
