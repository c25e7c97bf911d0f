package io.gshare.dev;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The dev runtime's calls to its own api's public REST API (registering clusters, the demo data, the benchmarks):
 * JSON in and out, and any answer but a 2xx a {@link CallFailed} naming the call and the problem's code and detail.
 */
public final class ApiClient {

  /** A call the api refused, or that did not reach it. */
  public static final class CallFailed extends IOException {
    CallFailed(String message) {
      super(message);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String baseUrl;
  private final Duration timeout;

  public ApiClient(String baseUrl, Duration timeout) {
    this.baseUrl = baseUrl;
    this.timeout = timeout;
  }

  /** {@code method path} with {@code token} as bearer and {@code jsonBody} (null: none); answers the JSON body. */
  public JsonNode call(String method, String path, String token, String jsonBody) throws CallFailed {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
        .header("Authorization", "Bearer " + token).timeout(timeout)
        .method(method, jsonBody == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(jsonBody));
    if (jsonBody != null) {
      request.header("Content-Type", "application/json");
    }
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new CallFailed(method + " " + path + " failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while calling " + method + " " + path, e);
    }
    if (response.statusCode() / 100 != 2) {
      throw new CallFailed(method + " " + path + " answered " + response.statusCode() + problemOf(response.body()));
    }
    try {
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new CallFailed(method + " " + path + " answered " + response.statusCode() + " with a body that is not JSON: "
          + e.getMessage());
    }
  }

  /** {@code " conflict: an offering named x already exists"} from an RFC 9457 problem, with its field errors. */
  static String problemOf(String body) {
    try {
      JsonNode problem = JSON.readTree(body);
      StringBuilder text = new StringBuilder();
      if (problem.hasNonNull("code")) {
        text.append(' ').append(problem.get("code").asText());
      }
      if (problem.hasNonNull("detail")) {
        text.append(": ").append(problem.get("detail").asText());
      }
      if (problem.has("errors")) {
        text.append(' ').append(problem.get("errors"));
      }
      return text.length() == 0 ? " " + body : text.toString();
    } catch (IOException | RuntimeException e) {
      return body == null || body.isBlank() ? "" : " " + body;
    }
  }
}
