package io.gshare.workflows.cluster;

import java.util.List;

/**
 * A cluster as its worker sees it.
 *
 * @param serverVersion the apiserver's {@code gitVersion}
 * @param runtimeClassNvidia RuntimeClass {@code nvidia} exists
 * @param hamiDevicePlugin a HAMi device-plugin DaemonSet exists
 * @param ingressController an ingress-nginx controller is deployed
 * @param simulated the cluster is gShare's simulator, not real hardware
 */
public record ClusterDescription(
    String serverVersion,
    List<NodeInfo> nodes,
    boolean runtimeClassNvidia,
    boolean hamiDevicePlugin,
    boolean ingressController,
    boolean simulated) {

  public ClusterDescription {
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
  }

  public int gpuCount() {
    return nodes.stream().mapToInt(n -> n.gpus().size()).sum();
  }
}
