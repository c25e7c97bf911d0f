package io.gshare.clusterworker;

import io.gshare.workflows.common.Ids;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The cluster-worker's settings, from its environment (the Deployment's env, or the dev runtime's).
 * The Kubernetes connection is not here: the fabric8 client configures itself in-cluster style from
 * the service account (or from {@code KUBERNETES_MASTER} and {@code KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN}).
 *
 * @param clusterId the cluster this worker serves; it polls {@code gshare-cluster-<clusterId>} only
 * @param temporalAddress the Temporal frontend, {@code host:port}
 * @param temporalNamespace the Temporal namespace
 */
public record ClusterWorkerConfig(String clusterId, String temporalAddress, String temporalNamespace) {

  public static final String USAGE =
      """
      usage: gshare-cluster-worker (configured by environment)
        GSHARE_CLUSTER_ID           required; the cluster id this worker serves (e.g. clu_01h...)
        GSHARE_TEMPORAL_ADDRESS     Temporal frontend host:port (default 127.0.0.1:7233)
        GSHARE_TEMPORAL_NAMESPACE   Temporal namespace (default "default")
        KUBERNETES_*                fabric8 client settings; in a pod the service account is used""";

  /** Reads the settings, or throws with every problem listed. */
  public static ClusterWorkerConfig fromEnvironment(Map<String, String> env) {
    List<String> problems = new ArrayList<>();
    String clusterId = env.get("GSHARE_CLUSTER_ID");
    if (clusterId == null || clusterId.isBlank()) {
      problems.add("GSHARE_CLUSTER_ID is not set");
    } else if (!Ids.isValid(clusterId)) {
      problems.add("GSHARE_CLUSTER_ID '" + clusterId + "' is not a valid cluster id (lowercase letters, digits, _ and -)");
    }
    String address = env.getOrDefault("GSHARE_TEMPORAL_ADDRESS", "127.0.0.1:7233");
    if (!address.matches("[^\\s:/]+:\\d{1,5}")) {
      problems.add("GSHARE_TEMPORAL_ADDRESS '" + address + "' is not host:port");
    }
    String namespace = env.getOrDefault("GSHARE_TEMPORAL_NAMESPACE", "default");
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    return new ClusterWorkerConfig(clusterId, address, namespace);
  }
}
