package io.gshare.clusterworker;

import static io.gshare.workflows.cluster.AgentEnv.CGROUP_ROOT;
import static io.gshare.workflows.cluster.AgentEnv.CONTROL_PLANE_URL;
import static io.gshare.workflows.cluster.AgentEnv.HAMI_MONITOR_URL;
import static io.gshare.workflows.cluster.AgentEnv.INTERVAL_MILLIS;
import static io.gshare.workflows.cluster.AgentEnv.NODE_NAME;
import static io.gshare.workflows.cluster.AgentEnv.TOKEN_FILE;

import io.gshare.workflows.cluster.AgentEnv;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The usage agent's settings ({@code gshare-cluster-worker agent}), from its environment: the DaemonSet's env or the
 * dev runtime's; the variables are named by {@link AgentEnv}, which the deployers use too. Like the worker, it takes
 * its Kubernetes connection from the fabric8 client's own settings (the pod's service account).
 *
 * @param controlPlaneUrl where {@code /internal} is (with a trailing slash); required, the agent has nothing else to do
 * @param tokenFile the mounted operator token, the worker's own Secret
 * @param nodeName the node sampled ({@code spec.nodeName} from the downward API); null samples every node's session
 *     pods, for the dev runtime's single process over a simulated or local cluster
 * @param cgroupRoot where the node's cgroup v2 hierarchy is mounted in the agent's container
 * @param hamiMonitorUrl the node's HAMi vGPU monitor, the full {@code /metrics} URL; null: no GPU series
 * @param interval the time between samples
 */
public record UsageAgentConfig(URI controlPlaneUrl, Path tokenFile, String nodeName, Path cgroupRoot,
    URI hamiMonitorUrl, Duration interval) {

  public static final String DEFAULT_CGROUP_ROOT = "/sys/fs/cgroup";
  static final long DEFAULT_INTERVAL_MILLIS = 1000;
  static final long MIN_INTERVAL_MILLIS = 100;
  static final long MAX_INTERVAL_MILLIS = 60_000;

  public static final String USAGE = String.join("\n",
      "usage: gshare-cluster-worker agent (configured by environment)",
      "  the per-node usage agent: samples the session containers' cgroups (and HAMi's GPU series) for the live chart",
      usage(CONTROL_PLANE_URL.variable(), "required; the control plane's base URL, http(s), for /internal/v1/usage/live"),
      usage(TOKEN_FILE.variable(), "the operator token file (default " + ClusterWorkerConfig.DEFAULT_TOKEN_FILE + ")"),
      usage(NODE_NAME.variable(), "the node sampled, its spec.nodeName (default: every node)"),
      usage(CGROUP_ROOT.variable(), "where the node's cgroup v2 hierarchy is mounted (default " + DEFAULT_CGROUP_ROOT + ")"),
      usage(HAMI_MONITOR_URL.variable(), "the node's HAMi vGPU monitor, http://<node ip>:9394/metrics (default: no GPU series)"),
      usage(INTERVAL_MILLIS.variable(), "milliseconds between samples, " + MIN_INTERVAL_MILLIS + " to " + MAX_INTERVAL_MILLIS
          + " (default " + DEFAULT_INTERVAL_MILLIS + ")"),
      usage("KUBERNETES_*", "fabric8 client settings; in a pod the service account is used"));

  private static String usage(String variable, String meaning) {
    return String.format("  %-32s%s", variable, meaning);
  }

  /** Reads the settings, or throws with every problem listed. */
  public static UsageAgentConfig fromEnvironment(Map<String, String> env) {
    List<String> problems = new ArrayList<>();
    URI controlPlane = url(env, CONTROL_PLANE_URL, true, problems);
    if (controlPlane != null && !controlPlane.toString().endsWith("/")) {
      controlPlane = URI.create(controlPlane + "/");
    }
    String tokenFile = blankToNull(env.get(TOKEN_FILE.variable()));
    String nodeName = blankToNull(env.get(NODE_NAME.variable()));
    String root = blankToNull(env.get(CGROUP_ROOT.variable()));
    Path cgroupRoot = null;
    try {
      cgroupRoot = Path.of(root == null ? DEFAULT_CGROUP_ROOT : root);
      if (!Files.isDirectory(cgroupRoot)) {
        problems.add(CGROUP_ROOT.variable() + " '" + cgroupRoot + "' is not a directory (mount the node's /sys/fs/cgroup)");
      }
    } catch (InvalidPathException e) {
      problems.add(CGROUP_ROOT.variable() + " '" + root + "' is not a path");
    }
    URI hami = url(env, HAMI_MONITOR_URL, false, problems);
    long millis = DEFAULT_INTERVAL_MILLIS;
    String interval = blankToNull(env.get(INTERVAL_MILLIS.variable()));
    if (interval != null) {
      try {
        millis = Long.parseLong(interval);
        if (millis < MIN_INTERVAL_MILLIS || millis > MAX_INTERVAL_MILLIS) {
          problems.add(INTERVAL_MILLIS.variable() + " " + millis + " is not from " + MIN_INTERVAL_MILLIS + " to "
              + MAX_INTERVAL_MILLIS + " milliseconds");
        }
      } catch (NumberFormatException e) {
        problems.add(INTERVAL_MILLIS.variable() + " '" + interval + "' is not a number of milliseconds");
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    return new UsageAgentConfig(controlPlane, Path.of(tokenFile == null ? ClusterWorkerConfig.DEFAULT_TOKEN_FILE : tokenFile),
        nodeName, cgroupRoot, hami, Duration.ofMillis(millis));
  }

  /** An http(s) URL, or null when unset and optional. */
  private static URI url(Map<String, String> env, AgentEnv variable, boolean required, List<String> problems) {
    String url = blankToNull(env.get(variable.variable()));
    if (url == null) {
      if (required) {
        problems.add(variable.variable() + " is not set");
      }
      return null;
    }
    try {
      URI uri = URI.create(url);
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
        problems.add(variable.variable() + " '" + url + "' must be an http(s) URL");
        return null;
      }
      return uri;
    } catch (IllegalArgumentException e) {
      problems.add(variable.variable() + " '" + url + "' is not a URL");
      return null;
    }
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.trim();
  }
}
