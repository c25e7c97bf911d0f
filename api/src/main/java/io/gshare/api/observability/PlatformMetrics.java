package io.gshare.api.observability;

import io.gshare.core.observability.PlatformState;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * gShare's state as Prometheus gauges on the management port's {@code /actuator/prometheus}, refreshed from Postgres
 * every {@value #REFRESH_SECONDS} s: {@code gshare_sessions{state,cluster}}, {@code gshare_nodes{liveness,cluster}},
 * {@code gshare_operator_token_expiry_seconds{cluster_id}}, {@code gshare_alerts_firing{alertname}}, and the counter
 * {@code gshare_credits_charged_total}. Every api replica publishes the same values; aggregate with max, not sum.
 */
@Component
class PlatformMetrics implements SchedulingConfigurer {

  static final long REFRESH_SECONDS = 15;
  private static final Logger log = LoggerFactory.getLogger(PlatformMetrics.class);

  private final PlatformState state;
  private final MultiGauge sessions;
  private final MultiGauge nodes;
  private final MultiGauge tokenExpiry;
  private final MultiGauge alerts;
  private final DoubleAdder charged = new DoubleAdder();
  private final AtomicLong chargedThrough = new AtomicLong();

  PlatformMetrics(PlatformState state, MeterRegistry registry) {
    this.state = state;
    sessions = MultiGauge.builder("gshare.sessions").description("Sessions not ended, by state and cluster")
        .register(registry);
    nodes = MultiGauge.builder("gshare.nodes").description("Nodes of attached clusters, by liveness and cluster")
        .register(registry);
    tokenExpiry = MultiGauge.builder("gshare.operator.token.expiry").baseUnit("seconds")
        .description("Seconds until the operator token a cluster's worker uses expires").register(registry);
    alerts = MultiGauge.builder("gshare.alerts.firing").description("Admin alerts firing, by alertname")
        .register(registry);
    FunctionCounter.builder("gshare.credits.charged", charged, DoubleAdder::sum)
        .description("Credits charged for GPU time (minutes and settlements)").register(registry);
  }

  /** Per process, and harmless in every replica: it only reads Postgres into this process's own gauges. */
  @Override
  public void configureTasks(ScheduledTaskRegistrar tasks) {
    tasks.addFixedDelayTask(new FixedDelayTask(this::refresh, Duration.ofSeconds(REFRESH_SECONDS), Duration.ZERO));
  }

  void refresh() {
    try {
      sessions.register(rows(state.sessionsByStateAndCluster(), "state", "cluster"), true);
      nodes.register(rows(state.nodesByLivenessAndCluster(), "liveness", "cluster"), true);
      tokenExpiry.register(state.operatorTokenExpiry().stream()
          .map(t -> MultiGauge.Row.of(Tags.of("cluster_id", t.clusterId()), t.secondsLeft())).toList(), true);
      alerts.register(state.alertsFiring().stream()
          .map(a -> MultiGauge.Row.of(Tags.of("alertname", a.first()), a.count())).toList(), true);
      PlatformState.Charged more = state.creditsChargedAfter(chargedThrough.get());
      charged.add(more.amount().doubleValue());
      chargedThrough.set(more.lastId());
    } catch (RuntimeException e) {
      log.warn("platform metrics not refreshed: {}", e.toString());
    }
  }

  private static List<MultiGauge.Row<?>> rows(List<PlatformState.Count> counts, String first, String second) {
    return counts.stream()
        .<MultiGauge.Row<?>>map(c -> MultiGauge.Row.of(Tags.of(first, c.first(), second, c.second()), c.count()))
        .toList();
  }
}
