package io.gshare.activities.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.SharedKubeCluster;
import io.gshare.activities.cluster.model.AgentObjects;
import io.gshare.activities.cluster.model.WorkerObjects;
import org.junit.jupiter.api.Test;

/** The deployer applies the worker and the usage agent as the product does, on a real apiserver. */
class KubernetesWorkerDeployerTest {

  private static final WorkerObjects.Settings SETTINGS = new WorkerObjects.Settings(
      "registry.example.com/gshare/gshare-cluster-worker:1.0", "IfNotPresent", "temporal.example.com:7233", "default",
      "https://gshare.example.com", 15, 300);

  @Test
  void theDeployerAppliesTheAgentWhereEnabledAndRemovesItWhereNot() {
    // The module's shared real cluster: the apiserver admits the DaemonSet as the deployer applies it.
    try (KubernetesClient client = SharedKubeCluster.get().newClient()) {
      client.namespaces().resource(new NamespaceBuilder().withNewMetadata()
          .withName(WorkerObjects.NAMESPACE).endMetadata().build()).createOr(n -> n.update());
      String deployed = new KubernetesWorkerDeployer(SETTINGS, true).ensureRunning("clu_a", client);
      assertThat(deployed).contains(AgentObjects.DAEMON_SET);
      assertThat(client.apps().daemonSets().inNamespace(WorkerObjects.NAMESPACE).withName(AgentObjects.DAEMON_SET).get())
          .isNotNull();
      new KubernetesWorkerDeployer(SETTINGS, false).ensureRunning("clu_a", client);
      assertThat(client.apps().daemonSets().inNamespace(WorkerObjects.NAMESPACE).withName(AgentObjects.DAEMON_SET).get())
          .isNull();
      new KubernetesWorkerDeployer(SETTINGS, true).ensureRunning("clu_a", client);
      new KubernetesWorkerDeployer(SETTINGS, true).remove("clu_a", client);
      assertThat(client.apps().daemonSets().inNamespace(WorkerObjects.NAMESPACE).withName(AgentObjects.DAEMON_SET).get())
          .isNull();
      assertThat(client.apps().deployments().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.DEPLOYMENT).get())
          .isNull();
    }
  }
}
