package io.gshare.cli.support;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The public REST API, as the CLI calls it: a bearer token, JSON in and out, typed records on both sides, and every
 * error answer turned into an {@link ApiProblemException} carrying its problem document.
 */
public final class ApiClient {

  public static final String USER_AGENT = "gshare-cli/" + Version.current();
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final URI server;
  private final String token;
  private final HttpClient http;

  public ApiClient(URI server, String token) {
    this.server = withoutTrailingSlash(server);
    this.token = token;
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
        .followRedirects(HttpClient.Redirect.NEVER).build();
  }

  public URI server() {
    return server;
  }

  public <T> T get(String path, Class<T> type) {
    return convert(send("GET", path, null, Map.of()), type);
  }

  public JsonNode get(String path) {
    return send("GET", path, null, Map.of());
  }

  public <T> T post(String path, Object body, Class<T> type) {
    return convert(send("POST", path, body, Map.of()), type);
  }

  public JsonNode post(String path, Object body) {
    return send("POST", path, body, Map.of());
  }

  public JsonNode post(String path, Object body, Map<String, String> headers) {
    return send("POST", path, body, headers);
  }

  public JsonNode patch(String path, Object body) {
    return send("PATCH", path, body, Map.of());
  }

  public JsonNode put(String path, Object body) {
    return send("PUT", path, body, Map.of());
  }

  public JsonNode delete(String path) {
    return send("DELETE", path, null, Map.of());
  }

  public static <T> T convert(JsonNode node, Class<T> type) {
    try {
      return Json.MAPPER.treeToValue(node, type);
    } catch (JsonProcessingException e) {
      throw new CliException("the API answered something this CLI cannot read as " + type.getSimpleName()
          + ": " + e.getOriginalMessage(), e);
    }
  }

  /** {@code path?name=value&...} for the values that are present, each encoded. */
  public static String query(String path, Object... namesAndValues) {
    Map<String, Object> params = new LinkedHashMap<>();
    for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
      if (namesAndValues[i + 1] != null) {
        params.put(String.valueOf(namesAndValues[i]), namesAndValues[i + 1]);
      }
    }
    if (params.isEmpty()) {
      return path;
    }
    StringJoiner query = new StringJoiner("&", path + "?", "");
    params.forEach((k, v) -> query.add(encode(k) + "=" + encode(String.valueOf(v))));
    return query.toString();
  }

  /** One path segment, encoded (ids come from the user's command line). */
  public static String segment(String value) {
    return encode(value).replace("+", "%20");
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  private JsonNode send(String method, String path, Object body, Map<String, String> headers) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server + path)).timeout(TIMEOUT)
        .header("Accept", "application/json, application/problem+json")
        .header("User-Agent", USER_AGENT);
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    headers.forEach(request::header);
    try {
      if (body == null) {
        request.method(method, HttpRequest.BodyPublishers.noBody());
      } else {
        request.header("Content-Type", "application/json")
            .method(method, HttpRequest.BodyPublishers.ofByteArray(Json.MAPPER.writeValueAsBytes(body)));
      }
      HttpResponse<byte[]> response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      return read(method, path, response);
    } catch (HttpTimeoutException e) {
      throw new CliException("the API at " + server + " did not answer " + method + " " + path + " within "
          + TIMEOUT.toSeconds() + " s", e);
    } catch (ConnectException e) {
      throw new CliException("cannot reach the API at " + server + " (" + describe(e) + "); is the server right?"
          + " (gshare context list)", e);
    } catch (IOException e) {
      throw new CliException("the call to " + server + path + " failed: " + describe(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException("interrupted", e);
    }
  }

  private JsonNode read(String method, String path, HttpResponse<byte[]> response) throws IOException {
    int status = response.statusCode();
    byte[] bytes = response.body();
    String contentType = response.headers().firstValue("Content-Type").orElse("");
    if (status >= 400) {
      ApiProblemException.ApiProblem problem;
      if (contentType.contains("json") && bytes.length > 0) {
        problem = Json.MAPPER.readValue(bytes, ApiProblemException.ApiProblem.class);
      } else {
        problem = new ApiProblemException.ApiProblem(null, "HTTP " + status, status,
            method + " " + path + " answered " + status + " without a problem document", null, null, null);
      }
      throw new ApiProblemException(problem);
    }
    if (status >= 300) {
      throw new CliException(method + " " + path + " was redirected (" + status + " to "
          + response.headers().firstValue("Location").orElse("?") + "); is the server URL the API's?");
    }
    if (bytes.length == 0) {
      return Json.MAPPER.nullNode();
    }
    if (!contentType.contains("json")) {
      throw new CliException(method + " " + path + " answered " + contentType + ", not JSON; is " + server
          + " a gShare API?");
    }
    return Json.MAPPER.readTree(bytes);
  }

  private static String describe(Throwable e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private static URI withoutTrailingSlash(URI uri) {
    String s = uri.toString();
    return URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s);
  }
}
