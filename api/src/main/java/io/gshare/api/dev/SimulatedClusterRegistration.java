package io.gshare.api.dev;

import io.gshare.api.cluster.ClusterRepository;
import io.gshare.api.security.SecurityProperties;
import io.gshare.api.security.TokenKind;
import io.gshare.api.security.Tokens;
import io.gshare.workflows.common.Ids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * In the dev runtime, registers the simulated GPU cluster whose worker the launcher starts, and
 * writes that worker's operator token where the launcher mounts it. Until the attach workflow exists
 * this is how a cluster row comes to be; it only ever marks rows {@code simulated}.
 */
@Component
@ConditionalOnProperty(prefix = "gshare.dev.simulated-cluster", name = "id")
class SimulatedClusterRegistration implements ApplicationRunner {

  private static final Logger log = LoggerFactory.getLogger(SimulatedClusterRegistration.class);

  private final DevProperties properties;
  private final ClusterRepository clusters;
  private final Tokens tokens;
  private final SecurityProperties security;

  SimulatedClusterRegistration(DevProperties properties, ClusterRepository clusters, Tokens tokens,
      SecurityProperties security) {
    this.properties = properties;
    this.clusters = clusters;
    this.tokens = tokens;
    this.security = security;
  }

  @Override
  public void run(ApplicationArguments args) {
    DevProperties.SimulatedCluster sim = properties.simulatedCluster();
    Ids.requireValid(sim.id(), "gshare.dev.simulated-cluster.id");
    String name = sim.name() == null ? "sim" : sim.name();
    clusters.upsertSimulated(sim.id(), name, sim.sessionDomain());
    if (sim.tokenFile() != null) {
      io.gshare.api.support.SecretFiles.write(sim.tokenFile(),
          tokens.sign(TokenKind.INTERNAL, "operator:" + sim.id(), null, security.internalTokenTtl()));
    }
    log.info("registered the SIMULATED cluster {} ({}) for the dev runtime", sim.id(), name);
  }
}
