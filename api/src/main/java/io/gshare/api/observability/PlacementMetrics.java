package io.gshare.api.observability;

import io.gshare.core.placement.PlacementService;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import org.springframework.stereotype.Component;

/**
 * {@code gshare_placement_duration_seconds{outcome}}: every allocation decision, a create's (the api) or a resume's
 * (the session workflow's place activity), by outcome: {@code placed}, or the refusal's problem code
 * ({@code insufficient_capacity}, {@code unserviceable}, {@code insufficient_credits}, ...).
 */
@Component
class PlacementMetrics implements PlacementService.Observer {

  private final MeterRegistry registry;

  PlacementMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void decided(String outcome, Duration took) {
    Timer.builder("gshare.placement.duration").description("Placement decisions, admission included, by outcome")
        .tag("outcome", outcome).register(registry).record(took);
  }
}
