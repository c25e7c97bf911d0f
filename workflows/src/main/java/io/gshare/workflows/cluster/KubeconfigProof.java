package io.gshare.workflows.cluster;

/**
 * Whether a new kubeconfig reaches the cluster it is offered for: the uid of the kube-system namespace it reaches,
 * the one recorded for the cluster, and, when they differ or it reaches nothing, the reason in words.
 *
 * @param reached the kube-system uid the new kubeconfig reaches; null when it reaches no apiserver
 * @param expected the cluster's own kube-system uid; null when it was never recorded and cannot be read any more
 * @param refusal why the kubeconfig may not replace the stored one; null when it may
 */
public record KubeconfigProof(String reached, String expected, String refusal) {

  public boolean proven() {
    return refusal == null;
  }
}
