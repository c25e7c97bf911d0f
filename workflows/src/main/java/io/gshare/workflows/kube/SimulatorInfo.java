package io.gshare.workflows.kube;

/**
 * Where a dev or test cluster's simulated node-level parts are, published by the simulator in a ConfigMap of the
 * cluster ({@value #NAMESPACE}/{@value #CONFIG_MAP}) and read by the dev runtime's local-process deployer to start a
 * usage agent for it. Real clusters have no such ConfigMap: their agents run as a DaemonSet on the nodes.
 */
public final class SimulatorInfo {

  public static final String NAMESPACE = "kube-system";
  public static final String CONFIG_MAP = "gshare-simulator";
  /** The simulated cgroup v2 tree of the running containers (an absolute path on this machine). */
  public static final String CGROUP_ROOT = "cgroupRoot";
  /** The simulated HAMi vGPU monitor's {@code /metrics}. */
  public static final String HAMI_MONITOR_URL = "hamiMonitorUrl";
  /** The simulated DCGM exporter's {@code /metrics}, every node's GPUs. */
  public static final String DCGM_METRICS_URL = "dcgmMetricsUrl";

  private SimulatorInfo() {}
}
