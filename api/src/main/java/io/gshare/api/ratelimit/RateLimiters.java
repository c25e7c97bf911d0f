package io.gshare.api.ratelimit;

import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import org.springframework.stereotype.Component;

/**
 * One resilience4j limiter per limit and caller (a user id, a cluster id), refilled each second; a permit is taken
 * without waiting. The limiters live as long as the process: one per user or cluster that sent a limited request.
 * Each api replica counts on its own, so behind N replicas a caller gets up to N times the limit.
 */
@Component
public class RateLimiters {

  private final Map<RateLimit, RateLimiterRegistry> registries = new EnumMap<>(RateLimit.class);
  private final Map<RateLimit, Counter> refused = new EnumMap<>(RateLimit.class);

  RateLimiters(RateLimitProperties properties, MeterRegistry meters) {
    for (RateLimit limit : RateLimit.values()) {
      registries.put(limit, RateLimiterRegistry.of(RateLimiterConfig.custom()
          .limitForPeriod(properties.perSecond(limit))
          .limitRefreshPeriod(Duration.ofSeconds(1))
          .timeoutDuration(Duration.ZERO)
          .build()));
      refused.put(limit, Counter.builder("gshare.requests.rate.limited")
          .description("Requests answered 429 because their caller was over a rate limit")
          .tag("limit", limit.tag())
          .register(meters));
    }
  }

  /** Takes a permit of {@code limit} for {@code caller}; false (and counted) when none is left this second. */
  public boolean tryAcquire(RateLimit limit, String caller) {
    RateLimiter limiter = registries.get(limit).rateLimiter(caller);
    if (limiter.acquirePermission()) {
      return true;
    }
    refused.get(limit).increment();
    return false;
  }
}
