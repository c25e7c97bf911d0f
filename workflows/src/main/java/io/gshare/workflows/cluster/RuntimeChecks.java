package io.gshare.workflows.cluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Judges whether a described cluster can run gShare sessions. Pure, so workflows may call it. */
public final class RuntimeChecks {

  private RuntimeChecks() {}

  /** Named checks in a stable order; every one must hold for the cluster to be connected. */
  public static Map<String, Boolean> of(ClusterDescription d) {
    Map<String, Boolean> checks = new LinkedHashMap<>();
    checks.put("worker_polling", true);
    checks.put("runtime_class_nvidia", d.runtimeClassNvidia());
    checks.put("hami_device_plugin", d.hamiDevicePlugin());
    checks.put("ingress_controller", d.ingressController());
    checks.put("gpu_nodes_ready", d.nodes().stream().anyMatch(n -> n.ready() && !n.gpus().isEmpty()));
    return checks;
  }

  /** The failed checks with the operator's fix, or an empty list. */
  public static List<String> failures(Map<String, Boolean> checks) {
    List<String> failures = new ArrayList<>();
    checks.forEach(
        (name, ok) -> {
          if (!Boolean.TRUE.equals(ok)) {
            failures.add(name + ": " + HINTS.getOrDefault(name, "check failed"));
          }
        });
    return failures;
  }

  private static final Map<String, String> HINTS =
      Map.of(
          "runtime_class_nvidia", "RuntimeClass 'nvidia' is missing (hack/cluster-bootstrap.sh addons creates it)",
          "hami_device_plugin", "the HAMi device-plugin DaemonSet is not installed",
          "ingress_controller", "no ingress-nginx controller serves the session domain",
          "gpu_nodes_ready", "no Ready node reports GPUs (label GPU nodes gpu=on and gshare.io/gpu-mode)");
}
