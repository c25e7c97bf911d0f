package io.gshare.clusterworker;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gshare.activities.cluster.ClusterInventory;
import io.gshare.activities.cluster.model.WorkerObjects;
import io.gshare.contract.internal.InternalPaths;
import io.gshare.contract.internal.InventoryReport;
import io.gshare.workflows.cluster.GpuDeviceInfo;
import io.gshare.workflows.cluster.NodeInfo;
import io.gshare.workflows.kube.LabelKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every tick, one batched report of all the cluster's nodes and GPUs to the control plane, which
 * upserts by (cluster, hostname) and stamps liveness. New nodes need no registration: they show up
 * on the next tick.
 */
final class InventoryReporter {

  private static final Logger log = LoggerFactory.getLogger(InventoryReporter.class);

  private final String clusterId;
  private final KubernetesClient kubernetes;
  private final ControlPlaneClient controlPlane;
  InventoryReporter(String clusterId, KubernetesClient kubernetes, ControlPlaneClient controlPlane) {
    this.clusterId = clusterId;
    this.kubernetes = kubernetes;
    this.controlPlane = controlPlane;
  }

  /** One report. */
  void tick() throws Exception {
    ClusterInventory inventory = ClusterInventory.read(kubernetes);
    controlPlane.post(InternalPaths.INVENTORY, report(clusterId, inventory, tokenSecretPresent(kubernetes)));
  }

  /**
   * Whether the Secret the worker's token is mounted from still exists: the worker keeps the token it read, but
   * its next pod could not start without the Secret. Null when it cannot tell (the read failed): only a
   * definite "gone" has the control plane write a new one.
   */
  static Boolean tokenSecretPresent(KubernetesClient kubernetes) {
    try {
      return kubernetes.secrets().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.TOKEN_SECRET).get() != null;
    } catch (KubernetesClientException e) {
      log.warn("cannot read the Secret {}/{} ({}); not reported", WorkerObjects.NAMESPACE, WorkerObjects.TOKEN_SECRET,
          e.getMessage());
      return null;
    }
  }

  static InventoryReport report(String clusterId, ClusterInventory inventory) {
    return report(clusterId, inventory, null);
  }

  static InventoryReport report(String clusterId, ClusterInventory inventory, Boolean tokenSecretPresent) {
    List<InventoryReport.NodeReport> nodes = new ArrayList<>();
    for (int i = 0; i < inventory.nodes().size(); i++) {
      NodeInfo node = inventory.nodes().get(i);
      List<InventoryReport.GpuReport> gpus = new ArrayList<>();
      for (GpuDeviceInfo g : node.gpus()) {
        if (g.memoryMib() <= 0) {
          log.warn("node {}: GPU {} reports no memory; left out of the inventory", node.name(), g.uuid());
          continue;
        }
        // HAMi omits zero fields: a missing devcore is a whole GPU, a missing count no sharing.
        gpus.add(new InventoryReport.GpuReport(g.uuid(), g.index(), g.model(), g.memoryMib(),
            g.coresPercent() <= 0 ? 100 : Math.min(g.coresPercent(), 100), Math.max(g.splitCount(), 1), g.healthy()));
      }
      nodes.add(new InventoryReport.NodeReport(node.name(), node.ready(), node.schedulable(), node.gpuMode(), node.losslessPause(),
          relevantLabels(inventory.nodeObjects().get(i)), capacity(inventory.nodeObjects().get(i)), gpus));
    }
    return new InventoryReport(clusterId, inventory.serverVersion(), nodes, tokenSecretPresent);
  }

  /** Allocatable GPU resources as HAMi advertises them, plus cpu and memory. */
  private static Map<String, String> capacity(Node node) {
    Map<String, String> capacity = new LinkedHashMap<>();
    if (node.getStatus() != null && node.getStatus().getAllocatable() != null) {
      node.getStatus().getAllocatable().forEach((resource, quantity) -> {
        if (resource.startsWith("nvidia.com/") || resource.equals("cpu") || resource.equals("memory")) {
          capacity.put(resource, quantity.toString());
        }
      });
    }
    return capacity;
  }

  /** Only the labels gShare acts on; the rest of a node's labels are the cluster's business. */
  private static Map<String, String> relevantLabels(Node node) {
    Map<String, String> labels = new LinkedHashMap<>();
    if (node.getMetadata().getLabels() != null) {
      node.getMetadata().getLabels().forEach((key, value) -> {
        if (key.equals(LabelKeys.GPU) || key.startsWith(LabelKeys.PREFIX) || key.equals(LabelKeys.HOSTNAME)
            || key.startsWith(LabelKeys.NODE_ROLE_PREFIX) || key.startsWith("nvidia.com/")) {
          labels.put(key, value);
        }
      });
    }
    return labels;
  }
}
