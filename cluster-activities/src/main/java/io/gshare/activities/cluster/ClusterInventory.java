package io.gshare.activities.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.workflows.cluster.NodeInfo;
import java.util.List;

/**
 * The nodes and GPUs of the cluster as one snapshot: one apiserver version call and one node list,
 * whatever the cluster's size. The cluster-worker's inventory reporter and the describe activity
 * share it.
 *
 * @param nodeObjects the raw nodes, for callers that need more than {@link NodeInfo} carries
 */
public record ClusterInventory(String serverVersion, List<NodeInfo> nodes, List<Node> nodeObjects) {

  public static ClusterInventory read(KubernetesClient client) {
    String version = client.getKubernetesVersion().getGitVersion();
    List<Node> objects = client.nodes().list().getItems();
    return new ClusterInventory(version, objects.stream().map(ClusterActivitiesImpl::toNodeInfo).toList(), objects);
  }
}
