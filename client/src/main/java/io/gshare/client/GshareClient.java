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
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The public REST API ({@code /api/v1}), spoken once for every caller: the CLI, the dev runtime, the integration
 * tests, the fault suite and the benches. A bearer token, JSON in and out with the API's spelling ({@link ApiJson}),
 * typed records per feature ({@link #sessions()}, {@link #clusters()}, ...), every error answer an
 * {@link ApiProblemException} carrying its RFC 9457 document, and every transport failure an
 * {@link ApiCallException} that names the call.
 *
 * <p>{@link #exchange} is the one raw door, for tests of the HTTP contract itself (status codes, malformed bodies,
 * headers): it answers whatever the server said last.
 *
 * <p>A {@code 503} that carries {@code Retry-After} (what a load balancer answers when the api replica behind it went
 * away mid-request, or none is up for a moment) is sent again after the time it names, for a request that is safe to
 * repeat: {@code GET}, {@code HEAD}, {@code PUT}, {@code DELETE}, {@code OPTIONS}, and a {@code POST} or
 * {@code PATCH} that carries an {@code Idempotency-Key}. At most {@link #DEFAULT_ATTEMPTS} attempts in all, each
 * wait capped at {@link #DEFAULT_MAX_WAIT} ({@link #retries}); any other request gets the 503 back, its problem saying
 * that it was not sent again and why. A 503 without {@code Retry-After}, and every other status, is answered at once.
 */
public final class GshareClient {

  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
  /** How many times a request that met a 503 with {@code Retry-After} is sent in all, by default. */
  public static final int DEFAULT_ATTEMPTS = 4;
  /** The longest wait before sending again, whatever {@code Retry-After} asks, by default. */
  public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(5);
  /** The methods whose requests may be sent twice with the effect of once (RFC 9110, 9.2.2). */
  private static final Set<String> IDEMPOTENT = Set.of("GET", "HEAD", "PUT", "DELETE", "OPTIONS");
  private static final String IDEMPOTENCY_KEY = "Idempotency-Key";

  private final URI server;
  private final String token;
  private final String userAgent;
  private final Duration timeout;
  private final HttpClient http;
  private final Retries retries;

  /**
   * How a 503 with {@code Retry-After} is answered: at most {@code attempts} sends in all, each wait at most
   * {@code maxWait}; {@code seen} is told of each 503 answer before its request is sent again.
   */
  private record Retries(int attempts, Duration maxWait, Consumer<ApiResponse> seen) {}

  private GshareClient(URI server, String token, String userAgent, Duration timeout, HttpClient http,
      Retries retries) {
    this.server = withoutTrailingSlash(server);
    this.token = token;
    this.userAgent = userAgent;
    this.timeout = timeout;
    this.http = http;
    this.retries = retries;
  }

  /** A client of the API at {@code server} ({@code https://gshare.example.com}) calling with {@code token}. */
  public GshareClient(URI server, String token) {
    this(server, token, "gshare-client", DEFAULT_TIMEOUT, HttpClient.newBuilder()
        .connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER).build(),
        new Retries(DEFAULT_ATTEMPTS, DEFAULT_MAX_WAIT, response -> {}));
  }

  /** The same server and connections, calling as the holder of {@code otherToken} (null: anonymously). */
  public GshareClient as(String otherToken) {
    return new GshareClient(server, otherToken, userAgent, timeout, http, retries);
  }

  /** The same client, naming itself {@code agent} in {@code User-Agent}. */
  public GshareClient userAgent(String agent) {
    return new GshareClient(server, token, agent, timeout, http, retries);
  }

  /** The same client, waiting at most {@code perCall} for each answer. */
  public GshareClient timeout(Duration perCall) {
    return new GshareClient(server, token, userAgent, perCall, http, retries);
  }

  /**
   * The same client, sending a request that is safe to repeat at most {@code attempts} times in all when it is
   * answered 503 with {@code Retry-After}, waiting what the header asks but at most {@code maxWait} each time;
   * {@code retries(1, Duration.ZERO)} sends every request once.
   */
  public GshareClient retries(int attempts, Duration maxWait) {
    if (attempts < 1 || maxWait.isNegative()) {
      throw new IllegalArgumentException("attempts must be at least 1 and maxWait not negative");
    }
    return new GshareClient(server, token, userAgent, timeout, http, new Retries(attempts, maxWait, retries.seen()));
  }

  /**
   * The same client, telling {@code seen} of each 503 answer it sends its request again after (a test counts what
   * a caller did not see; the CLI says nothing of them).
   */
  public GshareClient onRetry(Consumer<ApiResponse> seen) {
    return new GshareClient(server, token, userAgent, timeout, http,
        new Retries(retries.attempts(), retries.maxWait(), seen));
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
   * body) and {@code headers}, answering whatever the server said last, error statuses included (a 503 with
   * {@code Retry-After} to a request safe to repeat is sent again first, as the class says). Transport failures are
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

  /**
   * Sends the request, and again while it is answered 503 with {@code Retry-After}, it is safe to repeat and attempts
   * are left ({@link Retries}).
   */
  private <T> HttpResponse<T> send(String method, String path, Object body, Map<String, String> headers,
      HttpResponse.BodyHandler<T> answer) {
    boolean repeatable = isRepeatable(method, headers);
    for (int attempt = 1; ; attempt++) {
      HttpResponse<T> response = sendOnce(method, path, body, headers, answer);
      Optional<Duration> wait = response.statusCode() == 503 ? retryAfter(response.headers(), Instant.now())
          : Optional.empty();
      if (wait.isEmpty() || !repeatable || attempt >= retries.attempts()) {
        return response;
      }
      retries.seen().accept(new ApiResponse(method, path, response.statusCode(), response.headers(),
          drain(response.body())));
      Duration capped = wait.get().compareTo(retries.maxWait()) > 0 ? retries.maxWait() : wait.get();
      try {
        Thread.sleep(capped.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ApiCallException("interrupted while waiting to send " + method + " " + path + " again", e);
      }
    }
  }

  /**
   * Whether sending the request twice has the effect of sending it once: an idempotent method, or a request whose
   * {@code Idempotency-Key} the API answers a second time from what the first did.
   */
  static boolean isRepeatable(String method, Map<String, String> headers) {
    String upper = method.toUpperCase(Locale.ROOT);
    if (IDEMPOTENT.contains(upper)) {
      return true;
    }
    return headers.entrySet().stream().anyMatch(h -> h.getKey().equalsIgnoreCase(IDEMPOTENCY_KEY)
        && h.getValue() != null && !h.getValue().isBlank());
  }

  /**
   * How long {@code Retry-After} asks to wait (RFC 9110, 10.2.3: seconds, or an HTTP date); empty when there is none
   * or it says neither.
   */
  static Optional<Duration> retryAfter(HttpHeaders headers, Instant now) {
    Optional<String> value = headers.firstValue("Retry-After").map(String::trim);
    if (value.isEmpty() || value.get().isEmpty()) {
      return Optional.empty();
    }
    String text = value.get();
    if (text.chars().allMatch(Character::isDigit)) {
      try {
        return Optional.of(Duration.ofSeconds(Long.parseLong(text)));
      } catch (NumberFormatException tooLong) {
        return Optional.of(Duration.ofSeconds(Long.MAX_VALUE / 1_000_000_000L));
      }
    }
    try {
      Duration until = Duration.between(now, ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
      return Optional.of(until.isNegative() ? Duration.ZERO : until);
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /** The body of an answer about to be sent again: read (a stream's is closed), for {@link #onRetry}. */
  private static byte[] drain(Object body) {
    if (body instanceof byte[] bytes) {
      return bytes;
    }
    if (body instanceof InputStream in) {
      try (in) {
        return in.readNBytes(64 * 1024);
      } catch (IOException e) {
        return new byte[0];
      }
    }
    return new byte[0];
  }

  private <T> HttpResponse<T> sendOnce(String method, String path, Object body, Map<String, String> headers,
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
    if (status == 503 && retryAfter(response.headers(), Instant.now()).isPresent()) {
      throw new ApiProblemException(notSentAgain(response, headers));
    }
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

  /**
   * The problem of a 503 with {@code Retry-After} this client answers its caller with, its detail saying why it was
   * not sent again: the attempts ran out, or the request is not safe to repeat (a POST without an
   * {@code Idempotency-Key} may have been carried out before the answer was lost).
   */
  private ApiProblemException.ApiProblem notSentAgain(ApiResponse response, Map<String, String> headers) {
    ApiProblemException.ApiProblem problem = response.problem();
    String detail = problem.detail() == null || problem.detail().isBlank() ? problem.title() : problem.detail();
    String why = isRepeatable(response.method(), headers)
        ? "; sent " + retries.attempts() + " time(s), each answered 503: try again later"
        : "; not sent again: a " + response.method() + " without an Idempotency-Key may already have been carried out"
            + " before its answer was lost, so check (list or get what it makes or changes) before sending it again";
    return new ApiProblemException.ApiProblem(problem.type(), problem.title(), problem.status(), detail + why,
        problem.code(), problem.errors(), problem.operationId());
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
