package io.gshare.api.alert;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.core.alert.AlertName;
import io.gshare.core.alert.Alerts;
import io.gshare.core.alert.Alerts.Alert;
import io.gshare.core.alert.EndedAlertConditions;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Every {@code gshare.alerts.delivery-interval}: resolves the alerts whose condition has ended, then sends each alert
 * whose current status the webhook has not taken, as Alertmanager's webhook receiver gets it (version 4, one alert
 * per message). The outbox rows are claimed with SKIP LOCKED, so several api replicas never send one twice; a failed
 * send is retried with backoff; a status delivered is never sent again.
 */
@Component
class AlertDelivery implements SchedulingConfigurer {

  private static final Logger log = LoggerFactory.getLogger(AlertDelivery.class);
  /** Alertmanager's zero time, which its receivers read as "not ended". */
  private static final String NOT_ENDED = "0001-01-01T00:00:00Z";
  private static final int BATCH = 20;

  private final Alerts alerts;
  private final EndedAlertConditions ended;
  private final AlertProperties properties;
  private final TransactionTemplate transactions;
  private final ObjectMapper json;
  private final HttpClient http;

  AlertDelivery(Alerts alerts, EndedAlertConditions ended, AlertProperties properties, TransactionTemplate transactions,
      ObjectMapper json) {
    this.alerts = alerts;
    this.ended = ended;
    this.properties = properties;
    this.transactions = transactions;
    this.json = json;
    this.http = HttpClient.newBuilder().connectTimeout(properties.timeout()).build();
  }

  @Override
  public void configureTasks(ScheduledTaskRegistrar tasks) {
    tasks.addFixedDelayTask(new FixedDelayTask(this::tick, properties.deliveryInterval(), properties.deliveryInterval()));
  }

  void tick() {
    try {
      resolveEnded();
      if (properties.webhook() != null) {
        while (deliverBatch() == BATCH) {
          // a full batch: more may be waiting
        }
      }
    } catch (RuntimeException e) {
      log.warn("alert delivery: {}", e.toString());
    }
  }

  /** Resolves the alerts whose condition is over: a node reported again, a token renewed, a volume reclaimed. */
  void resolveEnded() {
    for (AlertName name : AlertName.values()) {
      List<String> firing = alerts.firingObjects(name);
      if (!firing.isEmpty()) {
        for (String objectId : ended.ended(name, firing)) {
          alerts.resolve(name, objectId);
        }
      }
    }
  }


  /** Sends one batch in one transaction (the claimed rows stay locked until it ends); answers how many it claimed. */
  int deliverBatch() {
    Integer claimed = transactions.execute(tx -> {
      List<Alert> due = alerts.claimUndelivered(BATCH);
      for (Alert alert : due) {
        String error = send(alert);
        if (error == null) {
          alerts.delivered(alert.id(), alert.status());
        } else {
          alerts.failed(alert.id(), error, properties.retryAfter(alert.attempts()));
          log.warn("alert {} ({} {}) not delivered (attempt {}): {}", alert.name(), alert.objectKind(), alert.objectId(),
              alert.attempts() + 1, error);
        }
      }
      return due.size();
    });
    return claimed == null ? 0 : claimed;
  }

  /** Null when the receiver took it (2xx); otherwise why not. */
  private String send(Alert alert) {
    try {
      HttpResponse<String> answer = http.send(HttpRequest.newBuilder(properties.webhook())
          .timeout(properties.timeout())
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(message(alert))))
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
    one.put("generatorURL", properties.externalUrl() == null || properties.externalUrl().isBlank() ? ""
        : properties.externalUrl().replaceAll("/$", "") + "/api/v1/alerts");
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
    message.put("externalURL", properties.externalUrl() == null ? "" : properties.externalUrl());
    message.put("alerts", List.of(one));
    return message;
  }

  private static String abbreviate(String text) {
    String oneLine = text.replaceAll("\\s+", " ").trim();
    return oneLine.length() > 200 ? oneLine.substring(0, 200) + "…" : oneLine;
  }
}
