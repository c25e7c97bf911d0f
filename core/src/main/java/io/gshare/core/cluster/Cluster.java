package io.gshare.core.cluster;

import io.gshare.workflows.cluster.ClusterStatus;
import java.time.Instant;

/** A registered cluster as the API shows it; the kubeconfig is never part of it. */
public record Cluster(
    String id,
    String name,
    ClusterStatus status,
    String statusReason,
    String sessionDomain,
    String ingressNode,
    String checkpointRegistry,
    boolean simulated,
    String apiserverVersion,
    Instant workerLastSeenAt,
    int nodeCount,
    int offlineNodes,
    int gpuCount,
    Instant createdAt,
    Instant updatedAt,
    Instant detachedAt,
    IdleReaping idleReaping,
    String sessionRouting,
    String sessionGateway) {

  /**
   * Where the cluster's worker reads GPU activity for the idle reaper: {@code prometheusUrl} (DCGM metrics)
   * takes priority over {@code hamiMonitorUrl}; with neither, idle reaping is off for the cluster.
   *
   * @param source {@code dcgm}, {@code hami}, or null when off
   * @param note what this means, for the cluster view
   */
  public record IdleReaping(String prometheusUrl, String hamiMonitorUrl, String source, boolean enabled, String note) {

    /**
     * The sources in use: the cluster's own, else the control plane's defaults, each on its own (a cluster with only
     * its own HAMi monitor still takes a default Prometheus, which wins as its own would).
     */
    public static IdleReaping of(String ownPrometheusUrl, String ownHamiMonitorUrl, IdleSourceDefaults defaults) {
      String prometheus = ownPrometheusUrl != null ? ownPrometheusUrl : defaults.prometheusUrl();
      String hami = ownHamiMonitorUrl != null ? ownHamiMonitorUrl : defaults.hamiMonitorUrl();
      IdleReaping chosen = of(prometheus, hami);
      boolean prometheusDefault = ownPrometheusUrl == null && prometheus != null;
      boolean hamiDefault = ownHamiMonitorUrl == null && hami != null && "hami".equals(chosen.source());
      if (!prometheusDefault && !hamiDefault) {
        return chosen;
      }
      return new IdleReaping(chosen.prometheusUrl(), chosen.hamiMonitorUrl(), chosen.source(), chosen.enabled(),
          chosen.note() + " (" + (prometheusDefault ? "prometheus_url" : "hami_monitor_url")
              + " is the control plane's default for clusters without their own; a PATCH of the cluster overrides it)");
    }

    public static IdleReaping of(String prometheusUrl, String hamiMonitorUrl) {
      if (prometheusUrl != null) {
        return new IdleReaping(prometheusUrl, hamiMonitorUrl, "dcgm", true,
            "idle sessions are found from DCGM_FI_DEV_GPU_UTIL in Prometheus" + (hamiMonitorUrl == null ? ""
                : "; the HAMi monitor is not used while a Prometheus is set"));
      }
      if (hamiMonitorUrl != null) {
        return new IdleReaping(null, hamiMonitorUrl, "hami", true,
            "idle sessions are found from the HAMi vGPU monitor; on clusters with several GPU nodes prefer Prometheus");
      }
      return new IdleReaping(null, null, null, false,
          "idle reaping is off: set prometheus_url or hami_monitor_url; only the max runtime applies");
    }
  }
}
