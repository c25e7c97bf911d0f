package io.gshare.api.session;

import io.gshare.core.cluster.IdleSourceDefaults;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Idle reaper settings ({@code gshare.idle.*}); the timeouts themselves are the policies'.
 *
 * @param enabled create the Temporal Schedule {@code idle-reaper} at boot
 * @param interval how often the sweep runs
 * @param staleAfter activity samples older than this, or a hole in them this long, are not a measurement: a
 *     session is not idle for the reaper until its worker reports again
 * @param retryInterval how often creating the Schedule is tried again while Temporal is not ready
 * @param prometheusUrl the Prometheus a cluster without its own {@code prometheus_url} reads (the chart's
 *     {@code operator.prometheusUrl}); empty: none
 * @param hamiMonitorUrl the HAMi vGPU monitor a cluster without its own {@code hami_monitor_url} reads (the chart's
 *     {@code operator.hamiMonitorUrl}); empty: none
 */
@Validated
@ConfigurationProperties(prefix = "gshare.idle", ignoreUnknownFields = false)
public record IdleReaperProperties(
    @DefaultValue("true") boolean enabled,
    @DefaultValue("60s") @NotNull @DurationMin(seconds = 1) Duration interval,
    @DefaultValue("2m") @NotNull @DurationMin(seconds = 1) Duration staleAfter,
    @DefaultValue("60s") @NotNull @DurationMin(millis = 1) Duration retryInterval,
    @DefaultValue("") @Pattern(regexp = "(https?://[^\\s?#]+)?", message = "must be an http(s) URL") String prometheusUrl,
    @DefaultValue("") @Pattern(regexp = "(https?://[^\\s?#]+)?", message = "must be an http(s) URL")
        String hamiMonitorUrl) {

  /** The sources a cluster without its own takes. */
  public IdleSourceDefaults sourceDefaults() {
    return new IdleSourceDefaults(trimmed(prometheusUrl), trimmed(hamiMonitorUrl));
  }

  private static String trimmed(String url) {
    return url == null || !url.endsWith("/") ? url : url.substring(0, url.length() - 1);
  }
}
