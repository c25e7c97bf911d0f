package io.gshare.api.dev;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings only the dev runtime sets.
 *
 * @param simulatedCluster the simulated GPU cluster to register at start; null outside the dev runtime
 */
@ConfigurationProperties(prefix = "gshare.dev", ignoreUnknownFields = false)
public record DevProperties(SimulatedCluster simulatedCluster) {

  /** @param sessionDomain the host sessions on the simulated cluster would be served under */
  public record SimulatedCluster(String id, String name, String sessionDomain) {}
}
