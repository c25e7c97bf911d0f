package io.gshare.api.dev;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings only the dev runtime sets.
 *
 * @param simulatedCluster the simulated GPU cluster to register at start; null outside the dev runtime
 * @param adminTokenFile where to write a super admin's API token at start, for the dev runtime's banner
 */
@ConfigurationProperties(prefix = "gshare.dev", ignoreUnknownFields = false)
public record DevProperties(SimulatedCluster simulatedCluster, Path adminTokenFile) {

  /**
   * @param sessionDomain the host sessions on the simulated cluster would be served under
   * @param tokenFile where to write the cluster-worker's operator token, as the attach workflow writes
   *     the {@code gshare-operator-internal-jwt} Secret in a real cluster
   */
  public record SimulatedCluster(String id, String name, String sessionDomain, Path tokenFile) {}
}
