package io.gshare.api.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP webhook receiver for the api's alerts (one per test JVM, as the api's context is): it records every
 * message it is sent and the status it answered, and answers 503 to the next N messages about an object when told.
 */
public final class AlertReceiver {

  /** One message received: its parsed body, the object it is about, and what it was answered. */
  public record Received(JsonNode body, String objectId, String status, int answered) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<Received> RECEIVED = new CopyOnWriteArrayList<>();
  private static final Map<String, AtomicInteger> FAILURES = new ConcurrentHashMap<>();
  private static HttpServer server;

  private AlertReceiver() {}

  /** Its URL, started on first use. */
  public static synchronized String url() {
    if (server == null) {
      try {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      server.createContext("/alerts", exchange -> {
        JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
        JsonNode labels = body.path("alerts").path(0).path("labels");
        String objectId = labels.path("node").asText(labels.path("gpu").asText(
            labels.path("volume").asText(labels.path("cluster").asText(null))));
        AtomicInteger failures = objectId == null ? null : FAILURES.get(objectId);
        int answer = failures != null && failures.getAndDecrement() > 0 ? 503 : 200;
        RECEIVED.add(new Received(body, objectId, body.path("status").asText(), answer));
        exchange.sendResponseHeaders(answer, -1);
        exchange.close();
      });
      server.start();
    }
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/alerts";
  }

  /** The next {@code count} messages about {@code objectId} are answered 503. */
  public static void failNext(String objectId, int count) {
    FAILURES.put(objectId, new AtomicInteger(count));
  }

  /** Every message about {@code objectId}, in arrival order. */
  public static List<Received> about(String objectId) {
    return RECEIVED.stream().filter(r -> objectId.equals(r.objectId())).toList();
  }
}
