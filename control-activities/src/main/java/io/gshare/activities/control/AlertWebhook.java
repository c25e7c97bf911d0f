package io.gshare.activities.control;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.core.alert.Alerts.Alert;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An Alertmanager-compatible webhook receiver ({@code gshare.alerts.webhook-url}): each alert is sent as Alertmanager's
 * webhook receiver gets it, version 4, one alert per message.
 */
public class AlertWebhook {

  /** Alertmanager's zero time, which its receivers read as "not ended". */
  private static final String NOT_ENDED = "0001-01-01T00:00:00Z";

  private final URI url;
  private final Duration timeout;
  private final String externalUrl;
  private final ObjectMapper json;
  private final HttpClient http;

  /**
   * @param timeout one delivery's connect and answer time ({@code gshare.alerts.timeout})
   * @param externalUrl the control plane's URL, for each alert's {@code generatorURL}; null or empty: none
   */
  public AlertWebhook(URI url, Duration timeout, String externalUrl, ObjectMapper json) {
    this.url = url;
    this.timeout = timeout;
    this.externalUrl = externalUrl;
    this.json = json;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  /** Null when the receiver took it (2xx); otherwise why not. */
  String send(Alert alert) {
    try {
      HttpResponse<String> answer = http.send(HttpRequest.newBuilder(url)
          .timeout(timeout)
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofByteArray(body(alert)))
          .build(), HttpResponse.BodyHandlers.ofString());
      return answer.statusCode() / 100 == 2 ? null
          : "HTTP " + answer.statusCode() + (answer.body().isBlank() ? "" : ": " + abbreviate(answer.body()));
    } catch (IOException e) {
      return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  private byte[] body(Alert alert) {
    try {
      return json.writeValueAsBytes(message(alert));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("alert " + alert.id() + " could not be written as JSON", e);
    }
  }

  /** Alertmanager's webhook message (version 4) for one alert. */
  Map<String, Object> message(Alert alert) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("alertname", alert.name());
    labels.put("severity", alert.severity());
    labels.put(alert.objectKind(), alert.objectId());
    if (alert.clusterId() != null && !"cluster".equals(alert.objectKind())) {
      labels.put("cluster", alert.clusterId());
    }
    labels.put("source", "gshare");
    Map<String, String> annotations = Map.of("summary", alert.summary());
    Map<String, Object> one = new LinkedHashMap<>();
    one.put("status", alert.status());
    one.put("labels", labels);
    one.put("annotations", annotations);
    one.put("startsAt", alert.startsAt().toString());
    one.put("endsAt", alert.endsAt() == null ? NOT_ENDED : alert.endsAt().toString());
    one.put("generatorURL", externalUrl == null || externalUrl.isBlank() ? ""
        : externalUrl.replaceAll("/$", "") + "/api/v1/alerts");
    one.put("fingerprint", alert.fingerprint());
    Map<String, Object> message = new LinkedHashMap<>();
    message.put("version", "4");
    message.put("groupKey", "{}:{alertname=\"" + alert.name() + "\"}");
    message.put("truncatedAlerts", 0);
    message.put("status", alert.status());
    message.put("receiver", "gshare");
    message.put("groupLabels", Map.of("alertname", alert.name()));
    message.put("commonLabels", labels);
    message.put("commonAnnotations", annotations);
    message.put("externalURL", externalUrl == null ? "" : externalUrl);
    message.put("alerts", List.of(one));
    return message;
  }

  private static String abbreviate(String text) {
    String oneLine = text.replaceAll("\\s+", " ").trim();
    return oneLine.length() > 200 ? oneLine.substring(0, 200) + "…" : oneLine;
  }
}
