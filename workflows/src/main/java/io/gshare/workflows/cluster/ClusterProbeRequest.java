package io.gshare.workflows.cluster;

import java.time.Duration;

/**
 * @param workerWait how long the describe task may wait for the cluster-worker to pick it up before
 *     the cluster counts as unreachable; null takes the default
 */
public record ClusterProbeRequest(String clusterId, Duration workerWait) {

  public static final Duration DEFAULT_WORKER_WAIT = Duration.ofSeconds(20);

  public ClusterProbeRequest(String clusterId) {
    this(clusterId, null);
  }

  public Duration workerWaitOrDefault() {
    return workerWait == null ? DEFAULT_WORKER_WAIT : workerWait;
  }
}
