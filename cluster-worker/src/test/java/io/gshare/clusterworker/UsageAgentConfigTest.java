package io.gshare.clusterworker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gshare.workflows.cluster.AgentEnv;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UsageAgentConfigTest {

  @TempDir Path cgroups;

  @Test
  void readsTheEnvironmentWithDefaults() {
    UsageAgentConfig config = UsageAgentConfig.fromEnvironment(Map.of("GSHARE_CONTROL_PLANE_URL", "http://api:8080",
        "GSHARE_CGROUP_ROOT", cgroups.toString()));
    assertThat(config).isEqualTo(new UsageAgentConfig(URI.create("http://api:8080/"),
        Path.of("/var/run/secrets/gshare/internal-jwt"), null, cgroups, null, Duration.ofSeconds(1)));
  }

  @Test
  void readsEverySetting() {
    UsageAgentConfig config = UsageAgentConfig.fromEnvironment(Map.of("GSHARE_CONTROL_PLANE_URL", "https://gshare.example/",
        "GSHARE_TOKEN_FILE", "/run/token", "GSHARE_NODE_NAME", "gpu-a", "GSHARE_CGROUP_ROOT", cgroups.toString(),
        "GSHARE_HAMI_MONITOR_URL", "http://10.0.0.5:9394/metrics", "GSHARE_AGENT_INTERVAL_MILLIS", "250"));
    assertThat(config).isEqualTo(new UsageAgentConfig(URI.create("https://gshare.example/"), Path.of("/run/token"),
        "gpu-a", cgroups, URI.create("http://10.0.0.5:9394/metrics"), Duration.ofMillis(250)));
    assertThat(UsageAgentConfig.fromEnvironment(Map.of("GSHARE_CONTROL_PLANE_URL", "http://api",
        "GSHARE_CGROUP_ROOT", cgroups.toString(), "GSHARE_NODE_NAME", " ")).nodeName()).as("blank: every node").isNull();
  }

  @Test
  void listsEveryProblemAtOnce() {
    assertThatThrownBy(() -> UsageAgentConfig.fromEnvironment(Map.of("GSHARE_CGROUP_ROOT", "/nonexistent/cgroup",
        "GSHARE_HAMI_MONITOR_URL", "ftp://node:9394/metrics", "GSHARE_AGENT_INTERVAL_MILLIS", "often")))
        .hasMessageContaining("GSHARE_CONTROL_PLANE_URL is not set")
        .hasMessageContaining("GSHARE_CGROUP_ROOT '/nonexistent/cgroup' is not a directory")
        .hasMessageContaining("GSHARE_HAMI_MONITOR_URL 'ftp://node:9394/metrics' must be an http(s) URL")
        .hasMessageContaining("GSHARE_AGENT_INTERVAL_MILLIS 'often' is not a number of milliseconds");
    assertThatThrownBy(() -> UsageAgentConfig.fromEnvironment(Map.of("GSHARE_CONTROL_PLANE_URL", "api:8080",
        "GSHARE_CGROUP_ROOT", cgroups.toString(), "GSHARE_AGENT_INTERVAL_MILLIS", "99")))
        .hasMessageContaining("GSHARE_CONTROL_PLANE_URL 'api:8080' must be an http(s) URL")
        .hasMessageContaining("GSHARE_AGENT_INTERVAL_MILLIS 99 is not from 100 to 60000 milliseconds");
    assertThatThrownBy(() -> UsageAgentConfig.fromEnvironment(Map.of("GSHARE_CONTROL_PLANE_URL", "http://a b",
        "GSHARE_CGROUP_ROOT", cgroups.toString(), "GSHARE_AGENT_INTERVAL_MILLIS", "60001")))
        .hasMessageContaining("GSHARE_CONTROL_PLANE_URL 'http://a b' is not a URL")
        .hasMessageContaining("GSHARE_AGENT_INTERVAL_MILLIS 60001 is not from 100 to 60000");
    // the default cgroup root is checked too (this test's machine may or may not have one)
    if (!Files.isDirectory(Path.of("/sys/fs/cgroup"))) {
      assertThatThrownBy(() -> UsageAgentConfig.fromEnvironment(Map.of("GSHARE_CONTROL_PLANE_URL", "http://api")))
          .hasMessageContaining("GSHARE_CGROUP_ROOT '/sys/fs/cgroup' is not a directory");
    }
  }

  @Test
  void theUsageNamesEveryVariableTheAgentReads() {
    assertThat(UsageAgentConfig.USAGE).startsWith("usage: gshare-cluster-worker agent");
    assertThat(Arrays.stream(AgentEnv.values()).map(AgentEnv::variable))
        .allSatisfy(variable -> assertThat(UsageAgentConfig.USAGE).contains("  " + variable + " "));
    assertThat(UsageAgentConfig.USAGE).contains("KUBERNETES_*", "default /sys/fs/cgroup", "default 1000",
        "default /var/run/secrets/gshare/internal-jwt");
    assertThat(ClusterWorkerConfig.USAGE).as("the worker's --help points at the agent mode")
        .containsOnlyOnce("gshare-cluster-worker agent");
  }
}
