package io.gshare.activities.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.workflows.cluster.KubeconfigProof;
import io.gshare.workflows.cluster.KubeconfigProofRequest;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The four answers of a kubeconfig's proof, with kubeconfigs standing in for the apiservers they reach. */
class KubeconfigProofActivitiesImplTest {

  /** What each kubeconfig reaches: a kube-system uid, or no apiserver. */
  private static final Map<String, String> REACHES = Map.of("same", "uid-a", "other", "uid-b", "stored-a", "uid-a");

  private static KubeconfigProofActivitiesImpl proofs(Optional<String> recorded, String storedKubeconfig) {
    return new KubeconfigProofActivitiesImpl(
        (clusterId, sealed) -> new String(sealed, StandardCharsets.UTF_8),
        clusterId -> recorded,
        clusterId -> storedKubeconfig,
        kubeconfig -> {
          String uid = REACHES.get(kubeconfig);
          if (uid == null) {
            throw new IllegalStateException("connect timed out");
          }
          return uid;
        });
  }

  private static KubeconfigProofRequest offer(String kubeconfig) {
    return new KubeconfigProofRequest("clu_a", kubeconfig.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void theSameClusterIsProven() {
    KubeconfigProof proof = proofs(Optional.of("uid-a"), "stored-a").proveSameCluster(offer("same"));
    assertThat(proof.proven()).isTrue();
    assertThat(proof.reached()).isEqualTo("uid-a");
  }

  @Test
  void anotherClusterIsRefusedNamingBothIdentities() {
    KubeconfigProof proof = proofs(Optional.of("uid-a"), "stored-a").proveSameCluster(offer("other"));
    assertThat(proof.proven()).isFalse();
    assertThat(proof.reached()).isEqualTo("uid-b");
    assertThat(proof.expected()).isEqualTo("uid-a");
    assertThat(proof.refusal()).contains("reaches another cluster", "uid-b", "uid-a");
  }

  @Test
  void aKubeconfigThatReachesNothingIsRefusedWithTheReason() {
    KubeconfigProof proof = proofs(Optional.of("uid-a"), "stored-a").proveSameCluster(offer("nowhere"));
    assertThat(proof.proven()).isFalse();
    assertThat(proof.reached()).isNull();
    assertThat(proof.refusal()).contains("does not reach its cluster", "connect timed out");
  }

  @Test
  void withoutARecordedIdentityTheStoredKubeconfigDecides() {
    assertThat(proofs(Optional.empty(), "stored-a").proveSameCluster(offer("same")).proven()).isTrue();
    KubeconfigProof lost = proofs(Optional.empty(), "stored-gone").proveSameCluster(offer("same"));
    assertThat(lost.proven()).isFalse();
    assertThat(lost.refusal()).contains("never recorded", "/connection-test");
  }
}
