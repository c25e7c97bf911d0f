package io.gshare.activities.control;

/** Where the control plane records which cluster a stored kubeconfig reaches (its kube-system namespace uid). */
@FunctionalInterface
public interface ClusterIdentityLedger {

  void seen(String clusterId, String kubeSystemUid);

  ClusterIdentityLedger NONE = (clusterId, kubeSystemUid) -> {};
}
