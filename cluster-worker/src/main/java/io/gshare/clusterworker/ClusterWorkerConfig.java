package io.gshare.clusterworker;

import io.gshare.workflows.common.Ids;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
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
 * @param controlPlaneUrl where {@code /internal} is; null disables the reporters
 * @param tokenFile the mounted operator token ({@code gshare-operator-internal-jwt}, key {@code internal-jwt})
 * @param inventoryInterval how often the inventory is reported
 */
public record ClusterWorkerConfig(String clusterId, String temporalAddress, String temporalNamespace, URI controlPlaneUrl,
    Path tokenFile, Duration inventoryInterval) {

  public static final String DEFAULT_TOKEN_FILE = "/var/run/secrets/gshare/internal-jwt";

  public static final String USAGE =
      """
      usage: gshare-cluster-worker (configured by environment)
        GSHARE_CLUSTER_ID           required; the cluster id this worker serves (e.g. clu_01h...)
        GSHARE_TEMPORAL_ADDRESS     Temporal frontend host:port (default 127.0.0.1:7233)
        GSHARE_TEMPORAL_NAMESPACE   Temporal namespace (default "default")
        GSHARE_CONTROL_PLANE_URL    the control plane's base URL for /internal callbacks (reporters off when unset)
        GSHARE_TOKEN_FILE           the operator token file (default /var/run/secrets/gshare/internal-jwt)
        GSHARE_INVENTORY_INTERVAL   seconds between inventory and session status reports (default 15)
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
    URI controlPlane = null;
    String url = env.get("GSHARE_CONTROL_PLANE_URL");
    if (url != null && !url.isBlank()) {
      try {
        controlPlane = URI.create(url.endsWith("/") ? url : url + "/");
        if (!"http".equals(controlPlane.getScheme()) && !"https".equals(controlPlane.getScheme())) {
          problems.add("GSHARE_CONTROL_PLANE_URL '" + url + "' must be an http(s) URL");
        }
      } catch (IllegalArgumentException e) {
        problems.add("GSHARE_CONTROL_PLANE_URL '" + url + "' is not a URL");
      }
    }
    Duration interval = Duration.ofSeconds(15);
    String seconds = env.get("GSHARE_INVENTORY_INTERVAL");
    if (seconds != null) {
      try {
        interval = Duration.ofSeconds(Long.parseLong(seconds));
        if (interval.isNegative() || interval.isZero()) {
          problems.add("GSHARE_INVENTORY_INTERVAL must be a positive number of seconds");
        }
      } catch (NumberFormatException e) {
        problems.add("GSHARE_INVENTORY_INTERVAL '" + seconds + "' is not a number of seconds");
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    return new ClusterWorkerConfig(clusterId, address, namespace, controlPlane,
        Path.of(env.getOrDefault("GSHARE_TOKEN_FILE", DEFAULT_TOKEN_FILE)), interval);
  }
}
