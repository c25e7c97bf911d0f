package io.gshare.clusterworker;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.gshare.activities.cluster.model.WorkerObjects;
import io.gshare.workflows.cluster.WorkerEnv;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What a deployer sets is what the worker reads: both go through {@link WorkerEnv}. */
class WorkerEnvTest {

  @Test
  void theDeploymentSetsExactlyTheVariablesTheWorkerReads() {
    Deployment deployment = WorkerObjects.deployment("clu_a", new WorkerObjects.Settings(
        "registry.example.com/gshare/cluster-worker:1.0", "IfNotPresent", "temporal.example.com:7233", "gshare",
        "https://gshare.example.com", 20, 120));
    Map<String, String> env = new LinkedHashMap<>();
    for (EnvVar e : deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv()) {
      env.put(e.getName(), e.getValue());
    }

    Set<String> read = new LinkedHashSet<>();
    ClusterWorkerConfig config = ClusterWorkerConfig.fromEnvironment(recording(env, read));

    // Every variable the worker reads is one of WorkerEnv's; the Deployment sets all of them but the Temporal
    // credentials, which come only with the cluster's gshare-temporal-client Secret (below).
    assertThat(read).containsExactlyInAnyOrderElementsOf(
        Arrays.stream(WorkerEnv.values()).map(WorkerEnv::variable).toList());
    assertThat(env.keySet()).containsExactlyInAnyOrderElementsOf(Arrays.stream(WorkerEnv.values())
        .map(WorkerEnv::variable).filter(v -> !v.startsWith("GSHARE_TEMPORAL_TLS") && !v.equals("GSHARE_TEMPORAL_API_KEY_FILE"))
        .toList());
    Deployment withCredentials = WorkerObjects.deployment("clu_a", new WorkerObjects.Settings(
        "registry.example.com/gshare/cluster-worker:1.0", "IfNotPresent", "temporal.example.com:7233", "gshare",
        "https://gshare.example.com", 20, 120), Set.of("tls.crt", "tls.key", "ca.crt", "server-name", "api-key"));
    assertThat(withCredentials.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
        .extracting(EnvVar::getName)
        .containsExactlyInAnyOrderElementsOf(Arrays.stream(WorkerEnv.values()).map(WorkerEnv::variable)
            .filter(v -> !v.equals("GSHARE_TEMPORAL_TLS")).toList());
    assertThat(config).isEqualTo(new ClusterWorkerConfig("clu_a", "temporal.example.com:7233", "gshare",
        URI.create("https://gshare.example.com/"), Path.of(ClusterWorkerConfig.DEFAULT_TOKEN_FILE), Duration.ofSeconds(20),
        Duration.ofSeconds(120)));
  }

  @Test
  void throughTheGatewayTheOperatorTokenIsTheOnlyTemporalCredential() {
    // The cluster holds a gshare-temporal-client Secret from before the gateway: through the gateway it stays unused.
    Deployment deployment = WorkerObjects.deployment("clu_a", new WorkerObjects.Settings(
        "registry.example.com/gshare/cluster-worker:1.0", "IfNotPresent", "gshare-internal.example.com:443", "gshare",
        "https://gshare-internal.example.com", 20, 120, true, true),
        Set.of("tls.crt", "tls.key", "ca.crt", "server-name", "api-key"));
    var pod = deployment.getSpec().getTemplate().getSpec();
    Map<String, String> env = new LinkedHashMap<>();
    for (EnvVar e : pod.getContainers().get(0).getEnv()) {
      env.put(e.getName(), e.getValue());
    }
    assertThat(env).containsEntry("GSHARE_TEMPORAL_ADDRESS", "gshare-internal.example.com:443")
        .containsEntry("GSHARE_TEMPORAL_API_KEY_FILE", WorkerObjects.TOKEN_MOUNT + "/" + WorkerObjects.TOKEN_KEY)
        .containsEntry("GSHARE_TEMPORAL_TLS", "true")
        .doesNotContainKeys("GSHARE_TEMPORAL_TLS_CERT", "GSHARE_TEMPORAL_TLS_KEY", "GSHARE_TEMPORAL_TLS_CA",
            "GSHARE_TEMPORAL_TLS_SERVER_NAME");
    assertThat(pod.getVolumes()).noneSatisfy(v -> assertThat(v.getSecret() == null ? null
        : v.getSecret().getSecretName()).isEqualTo(WorkerObjects.TEMPORAL_CLIENT_SECRET));

    ClusterWorkerConfig config = ClusterWorkerConfig.fromEnvironment(Map.of("GSHARE_CLUSTER_ID", "clu_a",
        "GSHARE_TEMPORAL_TLS", env.get("GSHARE_TEMPORAL_TLS")));
    assertThat(config.temporalAuth().tls()).isTrue();
    assertThat(config.temporalAuth().clientCert()).isNull();
  }

  /** A map that notes every key asked for, with or without a default. */
  private static Map<String, String> recording(Map<String, String> values, Set<String> read) {
    return new HashMap<>(values) {
      @Override
      public String get(Object key) {
        read.add((String) key);
        return super.get(key);
      }

      @Override
      public String getOrDefault(Object key, String fallback) {
        read.add((String) key);
        return super.getOrDefault(key, fallback);
      }
    };
  }
}
