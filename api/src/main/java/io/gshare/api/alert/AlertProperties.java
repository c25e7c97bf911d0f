package io.gshare.api.alert;

import jakarta.validation.constraints.NotNull;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Where admin alerts go.
 *
 * @param webhookUrl an Alertmanager-compatible webhook receiver ({@code GSHARE_ALERTS_WEBHOOK_URL}): Alertmanager's
 *     own {@code /api/v2/alerts} is not it; a receiver of Alertmanager's webhook (PagerDuty/Slack bridges, a chat
 *     bot, alertmanager-webhook-logger...) is. Empty: alerts are only listed at {@code GET /api/v1/alerts}
 * @param deliveryInterval how often undelivered alerts are sent and ended conditions resolved: the interval of the
 *     Temporal Schedule {@code alert-delivery}; below one second it runs every second, a Schedule's shortest interval
 * @param retryInitial the wait after a failed delivery, doubled each time up to {@code retryMax}
 * @param timeout one delivery's connect and answer time
 * @param externalUrl the control plane's URL, for each alert's {@code generatorURL} (empty: none)
 */
@Validated
@ConfigurationProperties(prefix = "gshare.alerts", ignoreUnknownFields = false)
public record AlertProperties(
    String webhookUrl,
    @DefaultValue("10s") @NotNull @DurationMin(millis = 100) Duration deliveryInterval,
    @DefaultValue("5s") @NotNull @DurationMin(millis = 10) Duration retryInitial,
    @DefaultValue("5m") @NotNull @DurationMin(millis = 10) Duration retryMax,
    @DefaultValue("5s") @NotNull @DurationMin(millis = 100) Duration timeout,
    String externalUrl) {

  public AlertProperties {
    if (webhookUrl != null && webhookUrl.isBlank()) {
      webhookUrl = null;
    }
    if (webhookUrl != null) {
      URI uri;
      try {
        uri = new URI(webhookUrl.trim());
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("gshare.alerts.webhook-url is not a URL: " + webhookUrl);
      }
      if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
        throw new IllegalArgumentException("gshare.alerts.webhook-url must be an http(s) URL, not " + webhookUrl);
      }
    }
  }

  /** The webhook, or null when alerts are only listed. */
  URI webhook() {
    return webhookUrl == null ? null : URI.create(webhookUrl.trim());
  }

  /** The wait before the next try after {@code attempts} failed ones. */
  Duration retryAfter(int attempts) {
    Duration wait = retryInitial.multipliedBy(1L << Math.min(attempts, 20));
    return wait.compareTo(retryMax) > 0 ? retryMax : wait;
  }
}
