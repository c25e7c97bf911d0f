package io.gshare.activities.cluster;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.model.SessionObjects;
import io.gshare.workflows.volume.VolumeClusterActivities;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A volume's claim in the worker's own cluster. */
public class VolumeClusterActivitiesImpl implements VolumeClusterActivities {

  /** The failure type of a claim that did not go within one attempt; retried by the reclaim. */
  public static final String CLAIM_STILL_PRESENT = "claim_still_present";

  private static final Logger log = LoggerFactory.getLogger(VolumeClusterActivitiesImpl.class);

  private final KubernetesClient client;
  private final Duration patience;
  private final Duration pollEvery;

  /** @param patience how long one attempt waits for the claim to go before it fails with what holds it */
  public VolumeClusterActivitiesImpl(KubernetesClient client, Duration patience, Duration pollEvery) {
    this.client = client;
    this.patience = patience;
    this.pollEvery = pollEvery;
  }

  public VolumeClusterActivitiesImpl(KubernetesClient client) {
    this(client, Duration.ofMinutes(1), Duration.ofSeconds(1));
  }

  @Override
  public void deleteClaim(String pvcName) {
    var claim = client.persistentVolumeClaims().inNamespace(SessionObjects.NAMESPACE).withName(pvcName);
    claim.delete();
    long until = System.currentTimeMillis() + patience.toMillis();
    PersistentVolumeClaim left = claim.get();
    while (left != null && System.currentTimeMillis() < until) {
      Activity.getExecutionContext().heartbeat(pvcName);
      sleep();
      left = claim.get();
    }
    if (left == null) {
      log.info("claim {} deleted", pvcName);
      return;
    }
    throw ApplicationFailure.newFailure("claim " + pvcName + " is still there after " + patience.toSeconds() + " s: "
        + whatHolds(left), CLAIM_STILL_PRESENT);
  }

  /** The pods that still mount the claim, else its finalizers: what an admin must clear. */
  private String whatHolds(PersistentVolumeClaim claim) {
    List<String> pods = new ArrayList<>();
    for (Pod pod : client.pods().inNamespace(SessionObjects.NAMESPACE).list().getItems()) {
      if (pod.getSpec().getVolumes() != null && pod.getSpec().getVolumes().stream().anyMatch(v ->
          v.getPersistentVolumeClaim() != null && claim.getMetadata().getName().equals(v.getPersistentVolumeClaim().getClaimName()))) {
        pods.add(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName());
      }
    }
    if (!pods.isEmpty()) {
      return "still mounted by pod " + String.join(", ", pods);
    }
    List<String> finalizers = claim.getMetadata().getFinalizers();
    return finalizers == null || finalizers.isEmpty() ? "not gone yet" : "held by finalizer " + String.join(", ", finalizers);
  }

  private void sleep() {
    try {
      Thread.sleep(pollEvery.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Activity.wrap(e);
    }
  }
}
