package io.gshare.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.gshare.client.session.NewSession;
import io.gshare.client.session.SessionDetail;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client against a local HTTP peer: what it sends, how it reads answers, problems and failures. */
class GshareClientTest {

  record Seen(String method, String uri, String authorization, String contentType, String body, String idempotencyKey) {}

  /** What /api/v1/flaky answers next, first in first out; a 200 once they are used up. */
  record Canned(int status, String retryAfter) {}

  private static final String UNAVAILABLE = """
      {"type":"urn:gshare:problem:unavailable","title":"Service unavailable","status":503,
       "detail":"the api replica went away before it answered","code":"unavailable"}""";

  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private final Deque<Canned> flaky = new ArrayDeque<>();
  private HttpServer server;
  private GshareClient client;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/api/v1/sessions", exchange -> {
      record(exchange);
      answer(exchange, 201, "application/json", """
          {"session":{"id":"ses_1","state":"pending","price_per_hour":"1.5","created_at":"2026-12-07T10:00:00Z",
           "unknown_member":true},"gpus":[],"cost_so_far":"0"}""");
    });
    server.createContext("/api/v1/volumes", exchange -> {
      record(exchange);
      answer(exchange, 422, "application/problem+json", """
          {"type":"https://gshare.example.com/problems/validation_failed","title":"Invalid request","status":422,
           "detail":"the request has invalid members","code":"validation_failed",
           "errors":[{"field":"size_gb","message":"must be at least 1"}]}""");
    });
    server.createContext("/api/v1/nodes", exchange -> {
      record(exchange);
      answer(exchange, 502, "text/html", "<html>bad gateway</html>");
    });
    server.createContext("/api/v1/credits", exchange -> {
      record(exchange);
      answer(exchange, 200, "application/json", "{\"balance\": 3,");
    });
    server.createContext("/api/v1/flaky", exchange -> {
      record(exchange);
      Canned next;
      synchronized (flaky) {
        next = flaky.poll();
      }
      if (next == null) {
        answer(exchange, 200, "application/json", "{\"ok\":" + seen.size() + "}");
        return;
      }
      if (next.retryAfter() != null) {
        exchange.getResponseHeaders().set("Retry-After", next.retryAfter());
      }
      answer(exchange, next.status(), "application/problem+json", UNAVAILABLE);
    });
    server.createContext("/api/v1/system", exchange -> {
      record(exchange);
      answer(exchange, 200, "text/html", "<html>a login page</html>");
    });
    server.start();
    client = new GshareClient(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/"), "tok-1");
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void aTypedCallSendsTheTokenAndSnakeCaseJsonAndReadsTheAnswerIgnoringUnknownMembers() {
    SessionDetail created = client.sessions().create(new NewSession("off_1", "img_1", null, "nb", null));

    assertThat(created.session().id()).isEqualTo("ses_1");
    assertThat(created.session().pricePerHour()).isEqualByComparingTo("1.5");
    Seen request = seen.get(0);
    assertThat(request.method()).isEqualTo("POST");
    assertThat(request.uri()).isEqualTo("/api/v1/sessions");
    assertThat(request.authorization()).isEqualTo("Bearer tok-1");
    assertThat(request.contentType()).isEqualTo("application/json");
    assertThat(request.body()).isEqualTo("{\"offering_id\":\"off_1\",\"image_id\":\"img_1\",\"name\":\"nb\"}");
  }

  @Test
  void anErrorAnswerIsAProblemExceptionWithItsFieldErrors() {
    assertThatThrownBy(() -> client.get("/api/v1/volumes"))
        .isInstanceOfSatisfying(ApiProblemException.class, e -> {
          assertThat(e.problem().status()).isEqualTo(422);
          assertThat(e.problem().code()).isEqualTo("validation_failed");
          assertThat(e.problem().errors()).extracting(ApiProblemException.FieldError::field).containsExactly("size_gb");
          assertThat(e.getMessage()).isEqualTo("the request has invalid members");
        });
  }

  @Test
  void anErrorWithoutAProblemDocumentIsDescribedByItsStatus() {
    assertThatThrownBy(() -> client.get("/api/v1/nodes"))
        .isInstanceOfSatisfying(ApiProblemException.class, e -> {
          assertThat(e.problem().status()).isEqualTo(502);
          assertThat(e.problem().detail()).isEqualTo("GET /api/v1/nodes answered 502 without a problem document");
        });
  }

  @Test
  void aSuccessThatIsNotJsonIsACallExceptionNamingTheContentType() {
    assertThatThrownBy(() -> client.system().get())
        .isInstanceOf(ApiCallException.class)
        .hasMessageContaining("answered text/html, not JSON");
  }

  @Test
  void aSuccessWithBrokenJsonIsACallExceptionNotAnEmptyAnswer() {
    assertThatThrownBy(() -> client.get("/api/v1/credits"))
        .isInstanceOf(ApiCallException.class)
        .hasMessageContaining("GET /api/v1/credits answered JSON this client cannot read");
  }

  @Test
  void exchangeAnswersErrorStatusesAsTheyCameAndSendsAStringBodyVerbatim() {
    ApiResponse response = client.as("tok-2").exchange("POST", "/api/v1/volumes", "{not json", Map.of("X-Extra", "1"));

    assertThat(response.status()).isEqualTo(422);
    assertThat(response.json().path("code").asText()).isEqualTo("validation_failed");
    assertThat(seen.get(0).body()).isEqualTo("{not json");
    assertThat(seen.get(0).authorization()).isEqualTo("Bearer tok-2");
  }

  @Test
  void anUnreachableServerIsACallExceptionNamingIt() {
    int port = server.getAddress().getPort();
    server.stop(0);

    assertThatThrownBy(() -> client.get("/api/v1/sessions"))
        .isInstanceOf(ApiCallException.class)
        .hasMessageContaining("http://127.0.0.1:" + port);
  }

  @Test
  void pathsEncodeSegmentsAndDropAbsentQueryValues() {
    assertThat(ApiPaths.session("a b/c")).isEqualTo("/api/v1/sessions/a%20b%2Fc");
    assertThat(ApiPaths.query(ApiPaths.SESSIONS, "state", "running", "cluster_id", null, "limit", 5))
        .isEqualTo("/api/v1/sessions?state=running&limit=5");
    assertThat(ApiPaths.query(ApiPaths.NODES, "pool_id", null)).isEqualTo("/api/v1/nodes");
  }

  @Test
  void aGetAnswered503WithRetryAfterIsSentAgainUntilItIsServed() {
    unavailable(2, "0");
    List<ApiResponse> retried = new CopyOnWriteArrayList<>();

    assertThat(client.onRetry(retried::add).get("/api/v1/flaky").path("ok").asInt()).isEqualTo(3);

    assertThat(seen).extracting(Seen::method).containsExactly("GET", "GET", "GET");
    assertThat(retried).extracting(ApiResponse::status).containsExactly(503, 503);
    assertThat(retried.get(0).json().path("code").asText()).isEqualTo("unavailable");
  }

  @Test
  void putAndDeleteAreSentAgainAndTheRawDoorAnswersTheLastAnswer() {
    unavailable(1, "0");
    assertThat(client.put("/api/v1/flaky", Map.of("a", 1)).path("ok").asInt()).isEqualTo(2);
    unavailable(1, "0");
    assertThat(client.delete("/api/v1/flaky").path("ok").asInt()).isEqualTo(4);
    unavailable(1, "0");
    assertThat(client.exchange("GET", "/api/v1/flaky", null).status()).isEqualTo(200);

    assertThat(seen).extracting(Seen::method).containsExactly("PUT", "PUT", "DELETE", "DELETE", "GET", "GET");
    assertThat(seen.get(1).body()).isEqualTo("{\"a\":1}");
  }

  @Test
  void aPostWithoutAnIdempotencyKeyGetsThe503BackSayingItWasNotSentAgain() {
    unavailable(1, "0");

    assertThatThrownBy(() -> client.post("/api/v1/flaky", Map.of("name", "nb")))
        .isInstanceOfSatisfying(ApiProblemException.class, e -> {
          assertThat(e.problem().status()).isEqualTo(503);
          assertThat(e.problem().code()).isEqualTo("unavailable");
          assertThat(e.getMessage()).startsWith("the api replica went away before it answered; not sent again")
              .contains("without an Idempotency-Key may already have been carried out");
        });
    assertThat(seen).hasSize(1);
    // The raw door answers it as it came.
    unavailable(1, "0");
    assertThat(client.exchange("POST", "/api/v1/flaky", "{}").status()).isEqualTo(503);
    assertThat(seen).hasSize(2);
  }

  @Test
  void aPostWithAnIdempotencyKeyIsSentAgainWithTheSameKeyAndBody() {
    unavailable(2, "0");

    assertThat(client.post("/api/v1/flaky", Map.of("amount", 5), Map.of("Idempotency-Key", "grant-1"))
        .path("ok").asInt()).isEqualTo(3);

    assertThat(seen).extracting(Seen::idempotencyKey).containsExactly("grant-1", "grant-1", "grant-1");
    assertThat(seen).extracting(Seen::body).containsOnly("{\"amount\":5}");
  }

  @Test
  void a503WithoutRetryAfterAndOtherStatusesAreAnsweredAtOnce() {
    unavailable(1, null);
    assertThatThrownBy(() -> client.get("/api/v1/flaky"))
        .isInstanceOfSatisfying(ApiProblemException.class, e -> {
          assertThat(e.problem().status()).isEqualTo(503);
          assertThat(e.getMessage()).isEqualTo("the api replica went away before it answered");
        });
    synchronized (flaky) {
      flaky.add(new Canned(429, "0"));
    }
    assertThat(client.exchange("GET", "/api/v1/flaky", null).status()).isEqualTo(429);

    assertThat(seen).hasSize(2);
  }

  @Test
  void theAttemptsAreBoundedAndTheLast503IsTheAnswer() {
    unavailable(10, "0");

    assertThatThrownBy(() -> client.retries(3, Duration.ofSeconds(1)).get("/api/v1/flaky"))
        .isInstanceOfSatisfying(ApiProblemException.class, e -> {
          assertThat(e.problem().status()).isEqualTo(503);
          assertThat(e.getMessage()).endsWith("; sent 3 time(s), each answered 503: try again later");
        });
    assertThat(seen).hasSize(3);
    assertThat(client.retries(1, Duration.ZERO).exchange("GET", "/api/v1/flaky", null).status()).isEqualTo(503);
    assertThat(seen).hasSize(4);
  }

  @Test
  void theWaitIsWhatRetryAfterAsksButNoLongerThanTheCap() {
    unavailable(1, "1");
    long t0 = System.nanoTime();
    assertThat(client.get("/api/v1/flaky").path("ok").asInt()).isEqualTo(2);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(950));

    unavailable(1, "3600");
    t0 = System.nanoTime();
    assertThat(client.retries(2, Duration.ofMillis(100)).get("/api/v1/flaky").path("ok").asInt()).isEqualTo(4);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
  }

  @Test
  void retryAfterIsReadAsSecondsOrAnHttpDate() {
    Instant now = Instant.parse("2026-12-07T10:00:00Z");
    assertThat(GshareClient.retryAfter(headers("2"), now)).contains(Duration.ofSeconds(2));
    assertThat(GshareClient.retryAfter(headers("Mon, 07 Dec 2026 10:00:05 GMT"), now)).contains(Duration.ofSeconds(5));
    assertThat(GshareClient.retryAfter(headers("Mon, 07 Dec 2026 09:59:00 GMT"), now)).contains(Duration.ZERO);
    assertThat(GshareClient.retryAfter(headers("soon"), now)).isEmpty();
    assertThat(GshareClient.retryAfter(HttpHeaders.of(Map.of(), (a, b) -> true), now)).isEqualTo(Optional.empty());
    assertThat(GshareClient.isRepeatable("POST", Map.of("idempotency-key", "k"))).isTrue();
    assertThat(GshareClient.isRepeatable("POST", Map.of("Idempotency-Key", " "))).isFalse();
    assertThat(GshareClient.isRepeatable("PATCH", Map.of())).isFalse();
  }

  private void unavailable(int times, String retryAfter) {
    synchronized (flaky) {
      for (int i = 0; i < times; i++) {
        flaky.add(new Canned(503, retryAfter));
      }
    }
  }

  private static HttpHeaders headers(String retryAfter) {
    return HttpHeaders.of(Map.of("Retry-After", List.of(retryAfter)), (a, b) -> true);
  }

  private void record(HttpExchange exchange) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    seen.add(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().toString(),
        exchange.getRequestHeaders().getFirst("Authorization"), exchange.getRequestHeaders().getFirst("Content-Type"),
        body, exchange.getRequestHeaders().getFirst("Idempotency-Key")));
  }

  private static void answer(HttpExchange exchange, int status, String contentType, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }
}
