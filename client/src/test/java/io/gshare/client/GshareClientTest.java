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
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client against a local HTTP peer: what it sends, how it reads answers, problems and failures. */
class GshareClientTest {

  record Seen(String method, String uri, String authorization, String contentType, String body) {}

  private final List<Seen> seen = new CopyOnWriteArrayList<>();
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

  private void record(HttpExchange exchange) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    seen.add(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().toString(),
        exchange.getRequestHeaders().getFirst("Authorization"), exchange.getRequestHeaders().getFirst("Content-Type"),
        body));
  }

  private static void answer(HttpExchange exchange, int status, String contentType, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }
}
