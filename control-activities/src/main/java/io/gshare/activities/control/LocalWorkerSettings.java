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
 */
public record LocalWorkerSettings(Path jar, Path stateDir, Path logDir, String temporalAddress,
    String temporalNamespace, Supplier<String> controlPlaneUrl, int inventoryIntervalSeconds,
    int volumeSyncIntervalSeconds, boolean agentEnabled, boolean throughTemporalGateway) {

  public LocalWorkerSettings(Path jar, Path stateDir, Path logDir, String temporalAddress, String temporalNamespace,
      Supplier<String> controlPlaneUrl, int inventoryIntervalSeconds, int volumeSyncIntervalSeconds) {
    this(jar, stateDir, logDir, temporalAddress, temporalNamespace, controlPlaneUrl, inventoryIntervalSeconds,
        volumeSyncIntervalSeconds, false, false);
  }
}
