package io.gshare.workflows.cluster;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The verdict of a probe.
 *
 * @param status {@code connected}, {@code degraded} (reachable, but a runtime check failed),
 *     {@code unreachable} (no worker picked the task up) or {@code error} (the worker failed)
 * @param checks named checks, as the connection test shows them ({@code runtime_class_nvidia}, …)
 * @param reason why the status is not {@code connected}; null when it is
 * @param description what the worker saw; null unless the worker answered
 */
public record ClusterProbeResult(
    String clusterId, String status, Map<String, Boolean> checks, String reason, ClusterDescription description) {

  public static final String CONNECTED = "connected";
  public static final String DEGRADED = "degraded";
  public static final String UNREACHABLE = "unreachable";
  public static final String ERROR = "error";

  public ClusterProbeResult {
    // Keeps the checks' order (RuntimeChecks lists them deliberately) while staying immutable.
    checks = checks == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(checks));
  }
}
