package io.gshare.core.cluster;

/**
 * The idle reaper's sources for a cluster that sets none of its own (the chart's {@code operator.prometheusUrl} and
 * {@code operator.hamiMonitorUrl}, {@code gshare.idle.*}): each cluster's worker reads them from inside its own
 * cluster, so one in-cluster URL serves every cluster set up alike. A cluster's own URL (its PATCH) wins.
 *
 * @param prometheusUrl a Prometheus with the DCGM exporter's series; null: none
 * @param hamiMonitorUrl HAMi's vGPU monitor; null: none
 */
public record IdleSourceDefaults(String prometheusUrl, String hamiMonitorUrl) {

  public static final IdleSourceDefaults NONE = new IdleSourceDefaults(null, null);

  public IdleSourceDefaults {
    prometheusUrl = blankToNull(prometheusUrl);
    hamiMonitorUrl = blankToNull(hamiMonitorUrl);
  }

  /** Whether a cluster without sources of its own is measured. */
  public boolean any() {
    return prometheusUrl != null || hamiMonitorUrl != null;
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
