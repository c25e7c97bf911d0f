package io.gshare.workflows.cluster;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * Work on a cluster's apiserver from the control plane, through the cluster's stored kubeconfig:
 * what attach and detach must do before the cluster has a worker of its own. Runs on gshare-control.
 * Every method converges: running it again changes nothing more.
 */
@ActivityInterface
public interface ClusterRemoteActivities {

  /** The apiserver's version, proving the control plane reaches it; fails while it is unreachable. */
  @ActivityMethod(name = "ProbeApiserver")
  String probeApiserver(String clusterId);

  /** RuntimeClass nvidia, HAMi, ingress: what a session needs from the cluster. */
  @ActivityMethod(name = "CheckRuntime")
  ClusterDescription checkRuntime(String clusterId);

  /** Namespace gshare-system, the worker's ServiceAccount and its RBAC (server-side apply). */
  @ActivityMethod(name = "PrepareNamespace")
  void prepareNamespace(String clusterId);

  /** Signs a fresh operator:{clusterId} token and writes the gshare-operator-internal-jwt Secret. */
  @ActivityMethod(name = "InstallOperatorToken")
  void installOperatorToken(String clusterId);

  /**
   * Signs a fresh operator:{clusterId} token, writes it into the gshare-operator-internal-jwt Secret and
   * records its jti and lifetime; returns those, never the token. Signing again on a retry is harmless:
   * every token signed verifies until it expires, and the last one written wins.
   */
  @ActivityMethod(name = "RotateOperatorToken")
  IssuedToken rotateOperatorToken(String clusterId);

  /** Makes sure a cluster-worker runs for the cluster (a Deployment, or a local process in dev); says which. */
  @ActivityMethod(name = "DeployWorker")
  String deployWorker(String clusterId);

  /** Removes the worker and its token Secret from the cluster. */
  @ActivityMethod(name = "RemoveWorker")
  void removeWorker(String clusterId);
}
