package io.gshare.activities.control;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.model.AgentObjects;
import io.gshare.activities.cluster.model.WorkerObjects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The production deployer: a one-replica Deployment in gshare-system, server-side applied, and the usage agent's
 * DaemonSet where {@code agent.enabled} (removed where it is not, so turning it off and re-attaching takes it away).
 */
public final class KubernetesWorkerDeployer implements WorkerDeployer {

  private final WorkerObjects.Settings settings;
  private final boolean agentEnabled;

  public KubernetesWorkerDeployer(WorkerObjects.Settings settings) {
    this(settings, false);
  }

  public KubernetesWorkerDeployer(WorkerObjects.Settings settings, boolean agentEnabled) {
    this.settings = settings;
    this.agentEnabled = agentEnabled;
  }

  @Override
  public String ensureRunning(String clusterId, KubernetesClient cluster) {
    // The Temporal credentials an operator put in this cluster, if any (only the keys: their values stay there);
    // through the gateway the worker takes none of them.
    var credentials = settings.temporalGateway() ? null : cluster.secrets().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.TEMPORAL_CLIENT_SECRET)
        .get();
    Set<String> keys = new TreeSet<>();
    if (credentials != null) {
      if (credentials.getData() != null) {
        keys.addAll(credentials.getData().keySet());
      }
      if (credentials.getStringData() != null) {
        keys.addAll(credentials.getStringData().keySet());
      }
    }
    cluster.apps().deployments().inNamespace(WorkerObjects.NAMESPACE)
        .resource(WorkerObjects.deployment(clusterId, settings, keys))
        .fieldManager(WorkerObjects.FIELD_MANAGER).forceConflicts().serverSideApply();
    // A cluster attached before the Deployment took the guide's name: two workers would race on one queue.
    cluster.apps().deployments().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.LEGACY_DEPLOYMENT).delete();
    if (agentEnabled) {
      cluster.apps().daemonSets().inNamespace(WorkerObjects.NAMESPACE)
          .resource(AgentObjects.daemonSet(clusterId, settings))
          .fieldManager(WorkerObjects.FIELD_MANAGER).forceConflicts().serverSideApply();
    } else {
      cluster.apps().daemonSets().inNamespace(WorkerObjects.NAMESPACE).withName(AgentObjects.DAEMON_SET).delete();
    }
    return "Deployment " + WorkerObjects.NAMESPACE + "/" + WorkerObjects.DEPLOYMENT + " (" + settings.image() + ")"
        + (agentEnabled ? " and DaemonSet " + WorkerObjects.NAMESPACE + "/" + AgentObjects.DAEMON_SET : "");
  }

  @Override
  public void remove(String clusterId, KubernetesClient cluster) {
    cluster.apps().daemonSets().inNamespace(WorkerObjects.NAMESPACE).withName(AgentObjects.DAEMON_SET).delete();
    cluster.apps().deployments().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.DEPLOYMENT).delete();
    cluster.apps().deployments().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.LEGACY_DEPLOYMENT).delete();
  }
}
