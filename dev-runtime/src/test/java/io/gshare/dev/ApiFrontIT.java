package io.gshare.dev;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The api replicas' front ({@link ApiFront}), the real nginx in front of two stand-ins for the replicas: a replica
 * down is passed over, a request cut off by a replica that dies under it and no replica up are answered 503 with
 * Retry-After and a problem in words, the api's own 5xx pass as they are, and a browser keeps to its replica.
 */
class ApiFrontIT {

  @TempDir
  Path dir;

  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();
  private final List<HttpServer> replicas = new ArrayList<>();
  private ApiFront front;
  private int port;

  @BeforeEach
  void start() throws IOException {
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      int index = i;
      HttpServer replica = HttpServer.create(new InetSocketAddress("127.0.0.1", TestRuntimes.freePort()), 0);
      replica.createContext("/who", exchange -> answer(exchange, 200, "replica " + index));
      // The api's own 502 (say, an upstream of its own failing): not the front's to rewrite.
      replica.createContext("/own-502", exchange -> answer(exchange, 502, "the api's own answer"));
      // A replica that dies under the request: the connection closes with no answer.
      replica.createContext("/cut", exchange -> {
        exchange.getRequestBody().readAllBytes();
        exchange.close();
      });
      replica.start();
      replicas.add(replica);
      ports.add(replica.getAddress().getPort());
    }
    port = TestRuntimes.freePort();
    front = ApiFront.start(Path.of(System.getProperty("gshare.dev.nginx")), port, ports, TestRuntimes.freePort(),
        List.of(TestRuntimes.freePort(), TestRuntimes.freePort()), dir.resolve("front"));
  }

  @AfterEach
  void stop() {
    if (front != null) {
      front.close();
    }
    replicas.forEach(r -> r.stop(0));
  }

  @Test
  void aReplicaDownIsPassedOverAndEveryRequestIsServed() throws Exception {
    List<String> served = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      HttpResponse<String> answer = get("/who", null);
      assertThat(answer.statusCode()).isEqualTo(200);
      served.add(answer.body());
    }
    assertThat(served).contains("replica 0", "replica 1");

    replicas.get(0).stop(0);
    for (int i = 0; i < 6; i++) {
      HttpResponse<String> answer = get("/who", null);
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      assertThat(answer.body()).isEqualTo("replica 1");
    }
    // A POST whose connection was refused was sent nowhere: it goes to the other replica too.
    HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/who"))
        .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(200);
  }

  @Test
  void aRequestCutOffOrNoReplicaUpIsA503WithRetryAfterInWords() throws Exception {
    HttpResponse<String> cut = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/cut"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"nb\"}")).build(), HttpResponse.BodyHandlers.ofString());
    assertUnavailable(cut);

    HttpResponse<String> own = get("/own-502", null);
    assertThat(own.statusCode()).isEqualTo(502);
    assertThat(own.body()).isEqualTo("the api's own answer");

    replicas.forEach(r -> r.stop(0));
    assertUnavailable(get("/who", null));
  }

  @Test
  void aBrowserKeepsToItsReplicaWhileItLives() throws Exception {
    HttpResponse<String> first = get("/who", null);
    String replica = first.body().substring("replica ".length());
    assertThat(first.headers().firstValue("Set-Cookie")).hasValueSatisfying(cookie ->
        assertThat(cookie).startsWith("gshare_replica=" + replica + ";").contains("HttpOnly"));
    for (int i = 0; i < 4; i++) {
      HttpResponse<String> again = get("/who", "gshare_replica=" + replica);
      assertThat(again.body()).isEqualTo("replica " + replica);
      assertThat(again.headers().firstValue("Set-Cookie")).isEmpty();
    }
    replicas.get(Integer.parseInt(replica)).stop(0);
    String other = replica.equals("0") ? "1" : "0";
    HttpResponse<String> moved = get("/who", "gshare_replica=" + replica);
    assertThat(moved.body()).isEqualTo("replica " + other);
    assertThat(moved.headers().firstValue("Set-Cookie")).hasValueSatisfying(cookie ->
        assertThat(cookie).startsWith("gshare_replica=" + other + ";"));
  }

  private void assertUnavailable(HttpResponse<String> answer) throws IOException {
    assertThat(answer.statusCode()).isEqualTo(503);
    assertThat(answer.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
        assertThat(type).startsWith("application/problem+json"));
    JsonNode problem = json.readTree(answer.body());
    assertThat(problem.path("status").asInt()).isEqualTo(503);
    assertThat(problem.path("code").asText()).isEqualTo("unavailable");
    assertThat(problem.path("detail").asText()).contains("went away before it answered");
  }

  private HttpResponse<String> get(String path, String cookie) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
    if (cookie != null) {
      request.header("Cookie", cookie);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }
}
