package io.gshare.clusterworker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gshare.activities.temporal.TemporalClientAuth;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterWorkerConfigTest {

  @Test
  void readsTheEnvironmentWithDefaults() {
    ClusterWorkerConfig config = ClusterWorkerConfig.fromEnvironment(Map.of("GSHARE_CLUSTER_ID", "clu_01abc"));
    assertThat(config).isEqualTo(new ClusterWorkerConfig("clu_01abc", "127.0.0.1:7233", "default", null,
        Path.of("/var/run/secrets/gshare/internal-jwt"), Duration.ofSeconds(15),
        Duration.ofMinutes(5)));
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
    assertThatThrownBy(() -> ClusterWorkerConfig.fromEnvironment(Map.of("GSHARE_CLUSTER_ID", "clu_1",
        "GSHARE_TEMPORAL_TLS_CERT", "/nonexistent/tls.crt")))
        .hasMessageContaining("GSHARE_TEMPORAL_TLS_CERT and GSHARE_TEMPORAL_TLS_KEY go together")
        .hasMessageContaining("GSHARE_TEMPORAL_TLS_CERT '/nonexistent/tls.crt' is not a readable file");
    assertThatThrownBy(() -> ClusterWorkerConfig.fromEnvironment(Map.of("GSHARE_CLUSTER_ID", "clu_1",
        "GSHARE_TEMPORAL_TLS", "yes")))
        .hasMessageContaining("GSHARE_TEMPORAL_TLS 'yes' must be true or false");
  }

  @Test
  void readsTheTemporalCredentials(@TempDir Path dir) throws IOException {
    Path key = Files.writeString(dir.resolve("api-key"), "k");
    ClusterWorkerConfig config = ClusterWorkerConfig.fromEnvironment(Map.of("GSHARE_CLUSTER_ID", "clu_1",
        "GSHARE_TEMPORAL_API_KEY_FILE", key.toString(), "GSHARE_TEMPORAL_TLS_SERVER_NAME", "temporal.example.com"));
    assertThat(config.temporalAuth()).isEqualTo(new TemporalClientAuth(null, null, null,
        "temporal.example.com", key));
  }

  @Test
  void docsConfigurationListsEveryVariableTheHelpNames() throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "configuration.md"));
    String section = doc.substring(doc.indexOf("## The cluster-worker"));
    Matcher variable = Pattern.compile("^\\s+(GSHARE_[A-Z_]+|KUBERNETES_\\*)", Pattern.MULTILINE)
        .matcher(ClusterWorkerConfig.USAGE);
    List<String> variables = new ArrayList<>();
    while (variable.find()) {
      variables.add(variable.group(1));
    }
    assertThat(ClusterWorkerConfig.USAGE.lines().filter(line -> line.matches("  [A-Z].*")))
        .as("each variable stands apart from what it means").hasSize(14)
        .allSatisfy(line -> assertThat(line).matches("  (GSHARE_[A-Z_]+|KUBERNETES_\\*) +\\S.*"));
    assertThat(variables).hasSize(14)
        .allSatisfy(name -> assertThat(section).as("docs/configuration.md's cluster-worker table lists %s", name).contains("| `" + name + "` |"));
  }
}
