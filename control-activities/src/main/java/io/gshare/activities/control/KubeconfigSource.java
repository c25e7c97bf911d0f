package io.gshare.activities.control;

/** The decrypted kubeconfig of a registered cluster; the control plane keeps it encrypted at rest. */
@FunctionalInterface
public interface KubeconfigSource {

  /** @throws IllegalArgumentException when the cluster has no kubeconfig (a non-retryable problem) */
  String kubeconfig(String clusterId);
}
