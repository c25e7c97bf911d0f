package io.gshare.clusterworker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterWorkerConfigTest {

  @Test
  void readsTheEnvironmentWithDefaults() {
    ClusterWorkerConfig config = ClusterWorkerConfig.fromEnvironment(Map.of("GSHARE_CLUSTER_ID", "clu_01abc"));
    assertThat(config).isEqualTo(new ClusterWorkerConfig("clu_01abc", "127.0.0.1:7233", "default"));
  }

  @Test
  void listsEveryProblemAtOnce() {
    assertThatThrownBy(() -> ClusterWorkerConfig.fromEnvironment(
        Map.of("GSHARE_CLUSTER_ID", "Bad/Id", "GSHARE_TEMPORAL_ADDRESS", "http://temporal")))
        .hasMessageContaining("GSHARE_CLUSTER_ID 'Bad/Id'")
        .hasMessageContaining("GSHARE_TEMPORAL_ADDRESS 'http://temporal' is not host:port");
    assertThatThrownBy(() -> ClusterWorkerConfig.fromEnvironment(Map.of()))
        .hasMessageContaining("GSHARE_CLUSTER_ID is not set");
  }
}
