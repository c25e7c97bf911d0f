package io.gshare.clusterworker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterWorkerConfigTest {

  @Test
  void readsTheEnvironmentWithDefaults() {
    ClusterWorkerConfig config = ClusterWorkerConfig.fromEnvironment(Map.of("GSHARE_CLUSTER_ID", "clu_01abc"));
    assertThat(config).isEqualTo(new ClusterWorkerConfig("clu_01abc", "127.0.0.1:7233", "default", null,
        java.nio.file.Path.of("/var/run/secrets/gshare/internal-jwt"), java.time.Duration.ofSeconds(15)));
  }

  @Test
  void listsEveryProblemAtOnce() {
    assertThatThrownBy(() -> ClusterWorkerConfig.fromEnvironment(
        Map.of("GSHARE_CLUSTER_ID", "Bad/Id", "GSHARE_TEMPORAL_ADDRESS", "http://temporal",
            "GSHARE_CONTROL_PLANE_URL", "ftp://x", "GSHARE_INVENTORY_INTERVAL", "often")))
        .hasMessageContaining("GSHARE_CLUSTER_ID 'Bad/Id'")
        .hasMessageContaining("must be an http(s) URL")
        .hasMessageContaining("GSHARE_INVENTORY_INTERVAL 'often'")
        .hasMessageContaining("GSHARE_TEMPORAL_ADDRESS 'http://temporal' is not host:port");
    assertThatThrownBy(() -> ClusterWorkerConfig.fromEnvironment(Map.of()))
        .hasMessageContaining("GSHARE_CLUSTER_ID is not set");
  }
}
