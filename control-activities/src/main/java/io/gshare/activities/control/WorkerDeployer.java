package io.gshare.activities.control;

import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Runs a cluster's worker: a Deployment in the cluster in production, a local process in the dev
 * runtime; the attach workflow calls both through this one interface.
 */
public interface WorkerDeployer {

  /** Makes sure one worker runs for the cluster (starting one only when none does); says what runs. */
  String ensureRunning(String clusterId, KubernetesClient cluster);

  /**
   * The cluster's token Secret was rewritten. In Kubernetes the kubelet refreshes the mounted file by
   * itself; a local worker has no kubelet, so its deployer plays that part.
   */
  default void tokenSecretChanged(String clusterId, KubernetesClient cluster) {}

  /** Stops and removes the cluster's worker; nothing happens when none runs. */
  void remove(String clusterId, KubernetesClient cluster);
}
