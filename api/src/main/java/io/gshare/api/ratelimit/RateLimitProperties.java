package io.gshare.api.ratelimit;

import jakarta.validation.constraints.Min;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * @param userCommandsPerSecond session and volume commands one user may send a second
 *     ({@code GSHARE_RATE_LIMIT_USER_COMMANDS_PER_SECOND})
 * @param clusterReportsPerSecond reports one cluster's workers and usage agents may send a second, all nodes
 *     together ({@code GSHARE_RATE_LIMIT_CLUSTER_REPORTS_PER_SECOND}); the default leaves room for a usage agent
 *     on each of 1,000 nodes reporting every 10 seconds, twice over
 */
@Validated
@ConfigurationProperties(prefix = "gshare.rate-limits", ignoreUnknownFields = false)
public record RateLimitProperties(
    @DefaultValue("20") @Min(1) int userCommandsPerSecond,
    @DefaultValue("200") @Min(1) int clusterReportsPerSecond) {

  int perSecond(RateLimit limit) {
    return switch (limit) {
      case USER_COMMANDS -> userCommandsPerSecond;
      case CLUSTER_REPORTS -> clusterReportsPerSecond;
    };
  }
}
