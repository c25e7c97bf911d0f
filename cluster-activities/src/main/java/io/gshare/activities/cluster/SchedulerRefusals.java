package io.gshare.activities.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gshare.activities.cluster.model.HamiPlacement;
import io.gshare.workflows.common.FailureTypes;
import io.gshare.workflows.kube.Annotations;
import io.gshare.workflows.kube.LabelKeys;
import io.temporal.failure.ApplicationFailure;
import java.net.HttpURLConnection;
import java.util.Map;
import java.util.Optional;

/**
 * The refusals a session's start meets that waiting cannot cure, recognised in the cluster's own words and said
 * in gShare's: HAMi holding a card cordoned that gShare has uncordoned, and a pod the apiserver refuses.
 */
final class SchedulerRefusals {

  /** The reason HAMi's filter gives for a card in the node's {@code hami.io/device-cordon}. */
  static final String CARD_CORDONED = "CardCordoned";

  private SchedulerRefusals() {}

  /**
   * Words for a pod that HAMi's scheduler leaves unscheduled because it holds one of the pod's cards cordoned. gShare
   * places a session only on cards it holds uncordoned, so HAMi's view is stale: it reads the node's cordons only
   * when it registers the node again (HAMi v2.10), which an uncordon does not cause. Empty for any other state.
   */
  static Optional<String> staleCordon(Pod pod) {
    if (!HamiPlacement.SCHEDULER.equals(pod.getSpec().getSchedulerName()) || pod.getStatus() == null
        || pod.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return pod.getStatus().getConditions().stream()
        .filter(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()) && c.getMessage() != null
            && c.getMessage().contains(CARD_CORDONED))
        .findFirst()
        .map(c -> {
          Map<String, String> annotations = pod.getMetadata().getAnnotations() == null ? Map.of()
              : pod.getMetadata().getAnnotations();
          String cards = annotations.getOrDefault(Annotations.HAMI_USE_GPU_UUID, "its GPUs");
          String node = pod.getSpec().getNodeSelector() == null ? "its node"
              : pod.getSpec().getNodeSelector().getOrDefault(LabelKeys.HOSTNAME, "its node");
          return "HAMi's scheduler refuses " + cards + " on " + node + " as cordoned (" + c.getMessage()
              + "), but gShare holds them uncordoned: HAMi reads " + Annotations.HAMI_DEVICE_CORDON
              + " only when it registers a node again, so it has not seen the uncordon. Restart HAMi's scheduler "
              + "(kubectl rollout restart deployment of its release's scheduler) and start the session again.";
        });
  }

  /**
   * A non-retryable failure in words for a pod the apiserver refuses for good; empty for other failures, which the
   * activity's retries handle. A missing RuntimeClass {@code nvidia} reads
   * {@code pod rejected: RuntimeClass "nvidia" not found} (403).
   */
  static Optional<ApplicationFailure> podRefused(KubernetesClientException e) {
    String message = e.getMessage() == null ? "" : e.getMessage();
    if (e.getCode() == HttpURLConnection.HTTP_FORBIDDEN
        && message.contains("RuntimeClass \"" + HamiPlacement.RUNTIME_CLASS + "\" not found")) {
      return Optional.of(ApplicationFailure.newNonRetryableFailure("the cluster has no RuntimeClass '"
          + HamiPlacement.RUNTIME_CLASS + "', so its apiserver refuses the session's pod: "
          + "run hack/cluster-bootstrap.sh addons on the cluster (it creates it), then start the session again",
          FailureTypes.POD_REFUSED));
    }
    return Optional.empty();
  }
}
