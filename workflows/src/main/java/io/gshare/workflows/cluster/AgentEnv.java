package io.gshare.workflows.cluster;

/**
 * The environment variables the usage agent reads ({@code gshare-cluster-worker agent}, a DaemonSet when
 * {@code agent.enabled}): the DaemonSet's env and the dev runtime's local process set these and no others.
 */
public enum AgentEnv {
  /** The control plane's base URL; the agent posts each second's samples to its {@code /internal} plane. */
  CONTROL_PLANE_URL(WorkerEnv.CONTROL_PLANE_URL.variable()),
  /** The operator token file, the worker's own Secret mounted. */
  TOKEN_FILE(WorkerEnv.TOKEN_FILE.variable()),
  /** The node the agent samples (the downward API's {@code spec.nodeName}); unset: every node (dev runtime). */
  NODE_NAME("GSHARE_NODE_NAME"),
  /** Where the node's cgroup v2 hierarchy is mounted in the agent's container (default {@code /sys/fs/cgroup}). */
  CGROUP_ROOT("GSHARE_CGROUP_ROOT"),
  /** The node's HAMi vGPU monitor ({@code http://<node ip>:9394/metrics}); unset: no GPU series. */
  HAMI_MONITOR_URL("GSHARE_HAMI_MONITOR_URL"),
  /** Milliseconds between samples (default 1000). */
  INTERVAL_MILLIS("GSHARE_AGENT_INTERVAL_MILLIS");

  private final String variable;

  AgentEnv(String variable) {
    this.variable = variable;
  }

  /** The variable's name, e.g. {@code GSHARE_NODE_NAME}. */
  public String variable() {
    return variable;
  }
}
