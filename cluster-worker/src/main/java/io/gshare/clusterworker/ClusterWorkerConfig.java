package io.gshare.clusterworker;

import static io.gshare.workflows.cluster.WorkerEnv.CLUSTER_ID;
import static io.gshare.workflows.cluster.WorkerEnv.CONTROL_PLANE_URL;
import static io.gshare.workflows.cluster.WorkerEnv.INVENTORY_INTERVAL;
import static io.gshare.workflows.cluster.WorkerEnv.TEMPORAL_ADDRESS;
import static io.gshare.workflows.cluster.WorkerEnv.TEMPORAL_API_KEY_FILE;
import static io.gshare.workflows.cluster.WorkerEnv.TEMPORAL_NAMESPACE;
import static io.gshare.workflows.cluster.WorkerEnv.TEMPORAL_TLS;
import static io.gshare.workflows.cluster.WorkerEnv.TEMPORAL_TLS_CA;
import static io.gshare.workflows.cluster.WorkerEnv.TEMPORAL_TLS_CERT;
import static io.gshare.workflows.cluster.WorkerEnv.TEMPORAL_TLS_KEY;
import static io.gshare.workflows.cluster.WorkerEnv.TEMPORAL_TLS_SERVER_NAME;
import static io.gshare.workflows.cluster.WorkerEnv.TOKEN_FILE;
import static io.gshare.workflows.cluster.WorkerEnv.VOLUME_SYNC_INTERVAL;

import io.gshare.activities.temporal.TemporalClientAuth;
import io.gshare.workflows.cluster.WorkerEnv;
import io.gshare.workflows.common.Ids;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The cluster-worker's settings, from its environment (the Deployment's env, or the dev runtime's); the
 * variables are named by {@link WorkerEnv}, which the deployers use too.
 * The Kubernetes connection is not here: the fabric8 client configures itself in-cluster style from
 * the service account (or from {@code KUBERNETES_MASTER} and {@code KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN}).
 *
 * @param clusterId the cluster this worker serves; it polls {@code gshare-cluster-<clusterId>} only
 * @param temporalAddress the Temporal frontend, {@code host:port}
 * @param temporalNamespace the Temporal namespace
 * @param controlPlaneUrl where {@code /internal} is; null disables the reporters
 * @param tokenFile the mounted operator token ({@code gshare-operator-internal-jwt}, key {@code internal-jwt})
 * @param inventoryInterval how often the inventory is reported
 * @param volumeSyncInterval how often the volume sync runs (claims, usage, StorageClasses; 5 minutes by default)
 * @param temporalAuth mutual TLS and an API key for Temporal, when the worker dials it from another cluster
 */
public record ClusterWorkerConfig(String clusterId, String temporalAddress, String temporalNamespace, URI controlPlaneUrl,
    Path tokenFile, Duration inventoryInterval, Duration volumeSyncInterval, TemporalClientAuth temporalAuth) {

  public ClusterWorkerConfig(String clusterId, String temporalAddress, String temporalNamespace, URI controlPlaneUrl,
      Path tokenFile, Duration inventoryInterval, Duration volumeSyncInterval) {
    this(clusterId, temporalAddress, temporalNamespace, controlPlaneUrl, tokenFile, inventoryInterval, volumeSyncInterval,
        TemporalClientAuth.NONE);
  }

  public static final String DEFAULT_TOKEN_FILE = "/var/run/secrets/gshare/internal-jwt";

  public static final String USAGE = String.join("\n",
      "usage: gshare-cluster-worker (configured by environment)",
      "       gshare-cluster-worker agent: the per-node usage agent for the live chart instead (agent --help)",
      usage(CLUSTER_ID.variable(), "required; the cluster id this worker serves (e.g. clu_01h...)"),
      usage(TEMPORAL_ADDRESS.variable(), "Temporal frontend host:port (default 127.0.0.1:7233)"),
      usage(TEMPORAL_NAMESPACE.variable(), "Temporal namespace (default \"default\")"),
      usage(CONTROL_PLANE_URL.variable(), "the control plane's base URL for /internal callbacks (reporters off when unset)"),
      usage(TOKEN_FILE.variable(), "the operator token file (default " + DEFAULT_TOKEN_FILE + ")"),
      usage(INVENTORY_INTERVAL.variable(), "seconds between inventory and session status reports (default 15)"),
      usage(VOLUME_SYNC_INTERVAL.variable(), "seconds between volume syncs (default 300)"),
      usage(TEMPORAL_TLS_CERT.variable(), "mutual TLS to Temporal: the client certificate file (PEM), with the key"),
      usage(TEMPORAL_TLS_KEY.variable(), "its private key file (PEM, PKCS#8)"),
      usage(TEMPORAL_TLS_CA.variable(), "the CA file of Temporal's server certificate (default: the JVM's trust store)"),
      usage(TEMPORAL_TLS_SERVER_NAME.variable(), "the name to verify Temporal's certificate against"),
      usage(TEMPORAL_API_KEY_FILE.variable(), "a file holding an API key sent as a bearer token (read on each call)"),
      usage(TEMPORAL_TLS.variable(), "true: TLS to Temporal with no CA or certificate file (default false)"),
      usage("KUBERNETES_*", "fabric8 client settings; in a pod the service account is used"));

  private static String usage(String variable, String meaning) {
    return String.format("  %-32s%s", variable, meaning);
  }

  /** Reads the settings, or throws with every problem listed. */
  public static ClusterWorkerConfig fromEnvironment(Map<String, String> env) {
    List<String> problems = new ArrayList<>();
    String clusterId = env.get(CLUSTER_ID.variable());
    if (clusterId == null || clusterId.isBlank()) {
      problems.add(CLUSTER_ID.variable() + " is not set");
    } else if (!Ids.isValid(clusterId)) {
      problems.add(CLUSTER_ID.variable() + " '" + clusterId + "' is not a valid cluster id (lowercase letters, digits, _ and -)");
    }
    String address = env.getOrDefault(TEMPORAL_ADDRESS.variable(), "127.0.0.1:7233");
    if (!address.matches("[^\\s:/]+:\\d{1,5}")) {
      problems.add(TEMPORAL_ADDRESS.variable() + " '" + address + "' is not host:port");
    }
    String namespace = env.getOrDefault(TEMPORAL_NAMESPACE.variable(), "default");
    URI controlPlane = null;
    String url = env.get(CONTROL_PLANE_URL.variable());
    if (url != null && !url.isBlank()) {
      try {
        controlPlane = URI.create(url.endsWith("/") ? url : url + "/");
        if (!"http".equals(controlPlane.getScheme()) && !"https".equals(controlPlane.getScheme())) {
          problems.add(CONTROL_PLANE_URL.variable() + " '" + url + "' must be an http(s) URL");
        }
      } catch (IllegalArgumentException e) {
        problems.add(CONTROL_PLANE_URL.variable() + " '" + url + "' is not a URL");
      }
    }
    Duration interval = seconds(env, INVENTORY_INTERVAL.variable(), Duration.ofSeconds(15), problems);
    Duration volumeSync = seconds(env, VOLUME_SYNC_INTERVAL.variable(), Duration.ofMinutes(5), problems);
    String tls = blankToNull(env.get(TEMPORAL_TLS.variable()));
    if (tls != null && !tls.equals("true") && !tls.equals("false")) {
      problems.add(TEMPORAL_TLS.variable() + " '" + tls + "' must be true or false");
    }
    TemporalClientAuth auth = new TemporalClientAuth(path(env, TEMPORAL_TLS_CERT), path(env, TEMPORAL_TLS_KEY),
        path(env, TEMPORAL_TLS_CA), blankToNull(env.get(TEMPORAL_TLS_SERVER_NAME.variable())),
        path(env, TEMPORAL_API_KEY_FILE), "true".equals(tls));
    problems.addAll(auth.problems(TEMPORAL_TLS_CERT.variable(), TEMPORAL_TLS_KEY.variable(), TEMPORAL_TLS_CA.variable(),
        TEMPORAL_API_KEY_FILE.variable()));
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    return new ClusterWorkerConfig(clusterId, address, namespace, controlPlane,
        Path.of(env.getOrDefault(TOKEN_FILE.variable(), DEFAULT_TOKEN_FILE)), interval, volumeSync, auth);
  }

  private static Path path(Map<String, String> env, WorkerEnv variable) {
    String value = blankToNull(env.get(variable.variable()));
    return value == null ? null : Path.of(value);
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.trim();
  }

  private static Duration seconds(Map<String, String> env, String variable, Duration fallback, List<String> problems) {
    String seconds = env.get(variable);
    if (seconds == null) {
      return fallback;
    }
    try {
      Duration value = Duration.ofSeconds(Long.parseLong(seconds));
      if (value.isNegative() || value.isZero()) {
        problems.add(variable + " must be a positive number of seconds");
      }
      return value;
    } catch (NumberFormatException e) {
      problems.add(variable + " '" + seconds + "' is not a number of seconds");
      return fallback;
    }
  }
}
