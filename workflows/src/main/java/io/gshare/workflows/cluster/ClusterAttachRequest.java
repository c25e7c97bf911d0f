package io.gshare.workflows.cluster;

import java.time.Duration;

/**
 * @param workerWait how long one deployed worker has to poll its queue and report its inventory
 * @param workerAttempts how many times the worker is (re)deployed before the attach fails
 */
public record ClusterAttachRequest(String clusterId, Duration workerWait, int workerAttempts) {

  public static ClusterAttachRequest of(String clusterId) {
    return new ClusterAttachRequest(clusterId, Duration.ofSeconds(90), 3);
  }
}
