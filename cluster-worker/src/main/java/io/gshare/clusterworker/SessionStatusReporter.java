package io.gshare.clusterworker;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.model.SessionObjects;
import io.gshare.contract.internal.InternalPaths;
import io.gshare.contract.internal.SessionStatus;
import io.gshare.contract.internal.StatusReport;
import io.gshare.workflows.kube.LabelKeys;
import java.util.ArrayList;
import java.util.List;

/**
 * Every tick, the state of every session pod in the cluster, in one batch. The batch is complete (all
 * of {@code gshare-sessions}), so the control plane also learns which running sessions have no pod any
 * more; it passes both to the sessions' workflows, which ask the cluster again before they act.
 */
final class SessionStatusReporter {

  private final KubernetesClient kubernetes;
  private final ControlPlaneClient controlPlane;

  SessionStatusReporter(KubernetesClient kubernetes, ControlPlaneClient controlPlane) {
    this.kubernetes = kubernetes;
    this.controlPlane = controlPlane;
  }

  void tick() throws Exception {
    controlPlane.post(InternalPaths.SESSIONS_STATUS, report(kubernetes));
  }

  static StatusReport report(KubernetesClient kubernetes) {
    return report(kubernetes.pods().inNamespace(SessionObjects.NAMESPACE).withLabel(LabelKeys.SESSION_ID)
        .list().getItems());
  }

  /** The report of these pods, all of the cluster's session pods. */
  static StatusReport report(List<Pod> pods) {
    List<SessionStatus> sessions = new ArrayList<>();
    for (Pod pod : pods) {
      String sessionId = pod.getMetadata().getLabels().get(LabelKeys.SESSION_ID);
      var status = pod.getStatus();
      String phase = pod.getMetadata().getDeletionTimestamp() != null ? "Terminating"
          : status == null ? null : status.getPhase();
      sessions.add(new SessionStatus(sessionId, phase, status == null ? null : status.getPodIP(),
          pod.getSpec() == null ? null : pod.getSpec().getNodeName(), why(pod)));
    }
    return new StatusReport(sessions, true);
  }

  /** What the cluster says about a pod that is not simply running: eviction, OOM kill, exit code. */
  private static String why(Pod pod) {
    var status = pod.getStatus();
    if (status == null) {
      return null;
    }
    if (status.getContainerStatuses() != null) {
      for (ContainerStatus container : status.getContainerStatuses()) {
        var terminated = container.getState() == null ? null : container.getState().getTerminated();
        if (terminated != null) {
          return "container " + container.getName() + " " + (terminated.getReason() == null ? "terminated" : terminated.getReason())
              + " (exit code " + terminated.getExitCode() + ")";
        }
      }
    }
    if (status.getReason() != null) {
      return status.getReason() + (status.getMessage() == null ? "" : ": " + status.getMessage());
    }
    return null;
  }
}
