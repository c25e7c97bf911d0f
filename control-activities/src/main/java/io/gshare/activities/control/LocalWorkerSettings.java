package io.gshare.activities.control;

import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * What the local-process deployer needs to run cluster-workers beside the api (dev runtime, tests).
 *
 * @param jar the cluster-worker jar
 * @param stateDir per-cluster files (tokens) live under it
 * @param logDir where worker output goes; null inherits the api's
 * @param controlPlaneUrl asked when a worker starts: the api's own port is known only once it listens
 * @param agentEnabled whether each simulated cluster gets a local usage agent too
 * @param throughTemporalGateway {@code temporalAddress} is the control plane's Temporal gateway: the worker sends its
 *     operator token file as its Temporal API key
 * @param shared several api replicas share {@code stateDir} (the dev runtime with two or more): a worker runs with
 *     this api's own parent (the dev runtime) as its parent, so it outlives the replica that started it as a
 *     Deployment outlives an api pod; one another replica started (its pid file in {@code stateDir}) counts as
 *     running; stopping this api leaves the workers running
 */
public record LocalWorkerSettings(Path jar, Path stateDir, Path logDir, String temporalAddress,
    String temporalNamespace, Supplier<String> controlPlaneUrl, int inventoryIntervalSeconds,
    int volumeSyncIntervalSeconds, boolean agentEnabled, boolean throughTemporalGateway, boolean shared) {

  public LocalWorkerSettings(Path jar, Path stateDir, Path logDir, String temporalAddress, String temporalNamespace,
      Supplier<String> controlPlaneUrl, int inventoryIntervalSeconds, int volumeSyncIntervalSeconds,
      boolean agentEnabled, boolean throughTemporalGateway) {
    this(jar, stateDir, logDir, temporalAddress, temporalNamespace, controlPlaneUrl, inventoryIntervalSeconds,
        volumeSyncIntervalSeconds, agentEnabled, throughTemporalGateway, false);
  }

  public LocalWorkerSettings(Path jar, Path stateDir, Path logDir, String temporalAddress, String temporalNamespace,
      Supplier<String> controlPlaneUrl, int inventoryIntervalSeconds, int volumeSyncIntervalSeconds) {
    this(jar, stateDir, logDir, temporalAddress, temporalNamespace, controlPlaneUrl, inventoryIntervalSeconds,
        volumeSyncIntervalSeconds, false, false, false);
  }
}
