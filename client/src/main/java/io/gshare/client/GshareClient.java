package io.gshare.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.gshare.client.catalogue.Catalogue;
import io.gshare.client.cluster.Clusters;
import io.gshare.client.credit.Credits;
import io.gshare.client.node.Nodes;
import io.gshare.client.operation.Operations;
import io.gshare.client.session.Sessions;
import io.gshare.client.system.SystemInfo;
import io.gshare.client.user.Users;
import io.gshare.client.volume.Volumes;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * The public REST API ({@code /api/v1}), spoken once for every caller: the CLI, the dev runtime, the integration
 * tests, the fault suite and the benches. A bearer token, JSON in and out with the API's spelling ({@link ApiJson}),
 * typed records per feature ({@link #sessions()}, {@link #clusters()}, ...), every error answer an
 * {@link ApiProblemException} carrying its RFC 9457 document, and every transport failure an
 * {@link ApiCallException} that names the call.
 *
 * <p>{@link #exchange} is the one raw door, for tests of the HTTP contract itself (status codes, malformed bodies,
 * headers): it answers whatever the server said.
 */
public final class GshareClient {

  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  private final URI server;
  private final String token;
  private final String userAgent;
  private final Duration timeout;
  private final HttpClient http;

  private GshareClient(URI server, String token, String userAgent, Duration timeout, HttpClient http) {
    this.server = withoutTrailingSlash(server);
    this.token = token;
    this.userAgent = userAgent;
    this.timeout = timeout;
    this.http = http;
  }

  /** A client of the API at {@code server} ({@code https://gshare.example.com}) calling with {@code token}. */
  public GshareClient(URI server, String token) {
    this(server, token, "gshare-client", DEFAULT_TIMEOUT, HttpClient.newBuilder()
        .connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER).build());
  }

  /** The same server and connections, calling as the holder of {@code otherToken} (null: anonymously). */
  public GshareClient as(String otherToken) {
    return new GshareClient(server, otherToken, userAgent, timeout, http);
  }

  /** The same client, naming itself {@code agent} in {@code User-Agent}. */
  public GshareClient userAgent(String agent) {
    return new GshareClient(server, token, agent, timeout, http);
  }

  /** The same client, waiting at most {@code perCall} for each answer. */
  public GshareClient timeout(Duration perCall) {
    return new GshareClient(server, token, userAgent, perCall, http);
  }

  public URI server() {
    return server;
  }

  public Sessions sessions() {
    return new Sessions(this);
  }

  public Operations operations() {
    return new Operations(this);
  }

  public Clusters clusters() {
    return new Clusters(this);
  }

  public Nodes nodes() {
    return new Nodes(this);
  }

  public Volumes volumes() {
    return new Volumes(this);
  }

  public Users users() {
    return new Users(this);
  }

  public Credits credits() {
    return new Credits(this);
  }

  public Catalogue catalogue() {
    return new Catalogue(this);
  }

  public SystemInfo system() {
    return new SystemInfo(this);
  }

  public <T> T get(String path, Class<T> type) {
    return convert(get(path), type);
  }

  public JsonNode get(String path) {
    return call("GET", path, null, Map.of());
  }

  public <T> T post(String path, Object body, Class<T> type) {
    return convert(post(path, body), type);
  }

  public JsonNode post(String path, Object body) {
    return call("POST", path, body, Map.of());
  }

  public JsonNode post(String path, Object body, Map<String, String> headers) {
    return call("POST", path, body, headers);
  }

  public JsonNode patch(String path, Object body) {
    return call("PATCH", path, body, Map.of());
  }

  public JsonNode put(String path, Object body) {
    return call("PUT", path, body, Map.of());
  }

  public JsonNode delete(String path) {
    return call("DELETE", path, null, Map.of());
  }

  /** {@code node} read as {@code type}; an answer this client cannot read is an {@link ApiCallException}. */
  public static <T> T convert(JsonNode node, Class<T> type) {
    try {
      return ApiJson.MAPPER.treeToValue(node, type);
    } catch (JsonProcessingException e) {
      throw new ApiCallException("the API answered something this client cannot read as " + type.getSimpleName()
          + ": " + e.getOriginalMessage(), e);
    }
  }

  /**
   * {@code method path} with {@code body} (a String is sent as it is, any other object as the API's JSON; null: no
   * body) and {@code headers}, answering whatever the server said, error statuses included. Transport failures are
   * {@link ApiCallException}s.
   */
  public ApiResponse exchange(String method, String path, Object body, Map<String, String> headers) {
    HttpResponse<byte[]> response = send(method, path, body, headers, HttpResponse.BodyHandlers.ofByteArray());
    return new ApiResponse(method, path, response.statusCode(), response.headers(), response.body());
  }

  /**
   * {@link #exchange} whose body is read as it arrives (a Server-Sent Events stream, an answer that may not end): the
   * status and headers as soon as they come, the body for the caller to read and close.
   */
  public HttpResponse<InputStream> stream(String method, String path, Object body, Map<String, String> headers) {
    return send(method, path, body, headers, HttpResponse.BodyHandlers.ofInputStream());
  }

  private <T> HttpResponse<T> send(String method, String path, Object body, Map<String, String> headers,
      HttpResponse.BodyHandler<T> answer) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server + path)).timeout(timeout)
        .header("User-Agent", userAgent);
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    if (body == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request.method(method, HttpRequest.BodyPublishers.ofByteArray(bytesOf(body)));
      if (!hasHeader(headers, "Content-Type")) {
        request.header("Content-Type", "application/json");
      }
    }
    if (!hasHeader(headers, "Accept")) {
      request.header("Accept", "application/json, application/problem+json");
    }
    headers.forEach(request::header);
    try {
      return http.send(request.build(), answer);
    } catch (HttpTimeoutException e) {
      throw new ApiCallException("the API at " + server + " did not answer " + method + " " + path + " within "
          + timeout.toSeconds() + " s", e);
    } catch (ConnectException e) {
      throw new ApiCallException("cannot reach the API at " + server + " (" + describe(e)
          + "); is the server right?", e);
    } catch (IOException e) {
      throw new ApiCallException("the call to " + server + path + " failed: " + describe(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiCallException("interrupted while calling " + method + " " + path, e);
    }
  }

  /** {@link #exchange} without extra headers. */
  public ApiResponse exchange(String method, String path, Object body) {
    return exchange(method, path, body, Map.of());
  }

  private JsonNode call(String method, String path, Object body, Map<String, String> headers) {
    ApiResponse response = exchange(method, path, body, headers);
    int status = response.status();
    if (status >= 400) {
      throw new ApiProblemException(response.problem());
    }
    if (status >= 300) {
      throw new ApiCallException(method + " " + path + " was redirected (" + status + " to "
          + response.headers().firstValue("Location").orElse("?") + "); is the server URL the API's?");
    }
    if (response.body().length == 0) {
      return ApiJson.MAPPER.nullNode();
    }
    if (!response.isJson()) {
      throw new ApiCallException(method + " " + path + " answered " + response.contentType() + ", not JSON; is "
          + server + " a gShare API?");
    }
    try {
      return ApiJson.MAPPER.readTree(response.body());
    } catch (IOException e) {
      throw new ApiCallException(method + " " + path + " answered JSON this client cannot read: " + describe(e), e);
    }
  }

  private static byte[] bytesOf(Object body) {
    if (body instanceof String text) {
      return text.getBytes(StandardCharsets.UTF_8);
    }
    if (body instanceof byte[] bytes) {
      return bytes;
    }
    try {
      return ApiJson.MAPPER.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot write " + body.getClass().getSimpleName() + " as JSON", e);
    }
  }

  private static boolean hasHeader(Map<String, String> headers, String name) {
    return headers.keySet().stream().anyMatch(name::equalsIgnoreCase);
  }

  private static String describe(Throwable e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private static URI withoutTrailingSlash(URI uri) {
    String s = uri.toString();
    return URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s);
  }
}
