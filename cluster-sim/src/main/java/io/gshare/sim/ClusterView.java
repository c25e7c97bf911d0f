package io.gshare.sim;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/** What the simulated node-level parts (GPU metrics, cgroup counters) read of a cluster: its nodes and pods. */
public interface ClusterView {

  List<Node> nodes();

  List<Pod> pods();

  /** The pod, or null when it does not exist. */
  Pod pod(String namespace, String name);

  static ClusterView of(KubernetesClient client) {
    return new ClusterView() {
      @Override
      public List<Node> nodes() {
        return client.nodes().list().getItems();
      }

      @Override
      public List<Pod> pods() {
        return client.pods().inAnyNamespace().list().getItems();
      }

      @Override
      public Pod pod(String namespace, String name) {
        return client.pods().inNamespace(namespace).withName(name).get();
      }
    };
  }
}
