package io.gshare.workflows.cluster;

import io.gshare.workflows.common.TaskQueues;
import java.time.Duration;

/** What attach and probe say when no cluster-worker polls a cluster's queue: where to look, in words. */
public final class WorkerNotPolling {

  private WorkerNotPolling() {}

  /**
   * The problem, naming what a worker needs to poll: Temporal, reached through the control plane's Temporal gateway
   * on the internal plane (or the frontend itself where the gateway is off).
   */
  public static String problem(String clusterId, Duration waited) {
    return "no cluster-worker polled " + TaskQueues.cluster(clusterId) + " within " + waited.toSeconds()
        + "s: the worker reaches Temporal through the control plane's Temporal gateway on the internal plane;"
        + " check its log (kubectl -n gshare-system logs deploy/gshare-operator) and that the gateway answers"
        + " from inside the cluster (hack/attach-cluster.sh checks it; the internal plane and the"
        + " gshare-temporal-gateway route must be open to the cluster)";
  }
}
