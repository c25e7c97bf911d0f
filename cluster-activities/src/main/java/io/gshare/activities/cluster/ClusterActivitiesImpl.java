package io.gshare.activities.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.workflows.cluster.ClusterActivities;
import io.gshare.workflows.cluster.ClusterDescription;
import io.gshare.workflows.cluster.GpuDeviceInfo;
import io.gshare.workflows.cluster.NodeInfo;
import io.gshare.workflows.kube.Annotations;
import io.gshare.workflows.kube.LabelKeys;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Cluster activities, run by the cluster-worker inside its cluster with the in-cluster client. */
public class ClusterActivitiesImpl implements ClusterActivities {

  private static final Logger log = LoggerFactory.getLogger(ClusterActivitiesImpl.class);

  private final KubernetesClient client;

  public ClusterActivitiesImpl(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public ClusterDescription describeCluster() {
    ClusterInventory inventory = ClusterInventory.read(client);
    String version = inventory.serverVersion();
    List<NodeInfo> nodes = inventory.nodes();
    List<Node> nodeObjects = inventory.nodeObjects();
    boolean runtimeClass = client.resources(RuntimeClass.class).withName("nvidia").get() != null;
    boolean hami =
        !client.apps().daemonSets().inAnyNamespace().withLabels(LabelKeys.HAMI_DEVICE_PLUGIN).list().getItems().isEmpty();
    boolean ingress = !client.apps().deployments().inAnyNamespace().withLabels(LabelKeys.INGRESS_NGINX_CONTROLLER)
        .list().getItems().isEmpty();
    boolean simulated = nodeObjects.stream().anyMatch(n -> LabelKeys.simulated(labels(n)));
    log.info("described cluster: {} nodes, {} GPUs, apiserver {}", nodes.size(),
        nodes.stream().mapToInt(n -> n.gpus().size()).sum(), version);
    return new ClusterDescription(version, nodes, runtimeClass, hami, ingress, simulated);
  }

  static NodeInfo toNodeInfo(Node node) {
    Map<String, String> labels = labels(node);
    Map<String, String> annotations = node.getMetadata().getAnnotations() == null ? Map.of() : node.getMetadata().getAnnotations();
    boolean ready = node.getStatus() != null && node.getStatus().getConditions() != null
        && node.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    boolean schedulable = node.getSpec() == null || !Boolean.TRUE.equals(node.getSpec().getUnschedulable());
    List<GpuDeviceInfo> gpus;
    try {
      gpus = HamiDeviceRegister.parse(annotations.get(Annotations.HAMI_NODE_REGISTER));
    } catch (IllegalArgumentException e) {
      // One node's broken annotation must not hide the rest of the cluster.
      log.warn("node {}: {}", node.getMetadata().getName(), e.getMessage());
      gpus = List.of();
    }
    return new NodeInfo(
        node.getMetadata().getName(),
        ready,
        schedulable,
        labels.get(LabelKeys.GPU_MODE),
        LabelKeys.GPU_ON.equals(labels.get(LabelKeys.GPU)),
        LabelKeys.checkpointReady(labels),
        gpus);
  }

  private static Map<String, String> labels(Node node) {
    return node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
  }
}
