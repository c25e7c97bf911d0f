package io.gshare.workflows.cluster;

/**
 * A kubeconfig offered to replace a cluster's stored one, sealed by the api with its data key (the cluster id as
 * associated data), as a Temporal payload codec would: the history holds ciphertext only, and only a control worker,
 * which holds the same key, opens it.
 */
public record KubeconfigProofRequest(String clusterId, byte[] sealedKubeconfig) {}
