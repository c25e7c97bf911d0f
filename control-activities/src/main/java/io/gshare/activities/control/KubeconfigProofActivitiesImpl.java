package io.gshare.activities.control;

import io.gshare.workflows.cluster.KubeconfigProof;
import io.gshare.workflows.cluster.KubeconfigProofActivities;
import io.gshare.workflows.cluster.KubeconfigProofRequest;
import io.gshare.workflows.common.TaskQueues;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Proves a kubeconfig offered for a cluster reaches that very cluster: it reaches an apiserver, and that apiserver's
 * kube-system namespace has the uid recorded for the cluster (or, before one was recorded, the uid the stored
 * kubeconfig still reaches). Writes nothing: the api replaces the stored kubeconfig only on a proof.
 */
@ActivitiesOn(taskQueue = TaskQueues.CONTROL)
public class KubeconfigProofActivitiesImpl implements KubeconfigProofActivities {

  private final BiFunction<String, byte[], String> opener;
  private final Function<String, Optional<String>> recordedIdentity;
  private final KubeconfigSource stored;
  private final Function<String, String> identityOf;

  /**
   * @param opener opens a sealed kubeconfig of a cluster (the api's data key)
   * @param recordedIdentity the kube-system uid recorded for a cluster
   * @param stored the cluster's stored kubeconfig
   * @param identityOf the kube-system uid a kubeconfig reaches; throws with the reason when it reaches none
   */
  public KubeconfigProofActivitiesImpl(BiFunction<String, byte[], String> opener,
      Function<String, Optional<String>> recordedIdentity, KubeconfigSource stored, Function<String, String> identityOf) {
    this.opener = opener;
    this.recordedIdentity = recordedIdentity;
    this.stored = stored;
    this.identityOf = identityOf;
  }

  @Override
  public KubeconfigProof proveSameCluster(KubeconfigProofRequest request) {
    String clusterId = request.clusterId();
    String reached;
    try {
      reached = identityOf.apply(opener.apply(clusterId, request.sealedKubeconfig()));
    } catch (RuntimeException e) {
      return new KubeconfigProof(null, null, "the new kubeconfig does not reach its cluster: " + e.getMessage()
          + ". Check its server: and credentials (kubectl --kubeconfig FILE get ns kube-system)");
    }
    String expected = recordedIdentity.apply(clusterId).orElseGet(() -> {
      try {
        return identityOf.apply(stored.kubeconfig(clusterId));
      } catch (RuntimeException e) {
        return null;
      }
    });
    if (expected == null) {
      return new KubeconfigProof(reached, null, "its identity was never recorded and its stored kubeconfig no longer"
          + " connects. POST /api/v1/clusters/" + clusterId + "/connection-test, or detach and register it again");
    }
    if (!expected.equals(reached)) {
      return new KubeconfigProof(reached, expected, "the new kubeconfig reaches another cluster (its kube-system"
          + " namespace is " + reached + ", this cluster's is " + expected + "): register that one as a cluster of its"
          + " own");
    }
    return new KubeconfigProof(reached, expected, null);
  }
}
