package io.gshare.activities.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.model.SessionObjects;
import io.gshare.workflows.session.CheckpointImage;
import io.gshare.workflows.session.PodState;
import io.gshare.workflows.session.SessionClusterActivities;
import io.gshare.workflows.session.SessionPod;
import io.gshare.workflows.session.SessionVolume;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.KubernetesClientTimeoutException;
import io.fabric8.kubernetes.client.dsl.PodResource;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A session's objects, created and removed by its cluster's worker with the in-cluster client. */
public class SessionClusterActivitiesImpl implements SessionClusterActivities {

  private static final Logger log = LoggerFactory.getLogger(SessionClusterActivitiesImpl.class);
  static final String FIELD_MANAGER = "gshare-cluster-worker";

  private final KubernetesClient client;
  private final Duration pollInterval;
  private final Duration watchSlice;

  /**
   * @param pollInterval the pause before reading again after a watch failed
   * @param watchSlice how long one watch waits before the activity heartbeats (well under its heartbeat timeout)
   */
  public SessionClusterActivitiesImpl(KubernetesClient client, Duration pollInterval, Duration watchSlice) {
    this.client = client;
    this.pollInterval = pollInterval;
    this.watchSlice = watchSlice;
  }

  public SessionClusterActivitiesImpl(KubernetesClient client) {
    this(client, Duration.ofSeconds(1), Duration.ofSeconds(10));
  }

  @Override
  public void ensureObjects(SessionPod session) {
    client.resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata()
        .withName(SessionObjects.NAMESPACE).addToLabels("app.kubernetes.io/managed-by", "gshare").endMetadata().build())
        .fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
    if (session.volume() != null) {
      ensureClaim(session.volume());
    }
    String name = SessionObjects.name(session.sessionId());
    Pod existing = client.pods().inNamespace(SessionObjects.NAMESPACE).withName(name).get();
    if (existing != null && existing.getStatus() != null && "Failed".equals(existing.getStatus().getPhase())) {
      // A failed pod from an earlier attempt: pods are immutable, make a new one.
      client.pods().inNamespace(SessionObjects.NAMESPACE).withName(name).delete();
      existing = null;
    }
    if (existing == null) {
      apply(SessionObjects.pod(session));
    }
    apply(SessionObjects.service(session));
    apply(SessionObjects.ingress(session));
    log.info("session {}: pod, service and ingress in place on {}", session.sessionId(), session.placement().hostname());
  }

  /**
   * Claims the volume in this cluster once. An existing claim is left as it is: its size may have been
   * expanded since, and a claim's spec cannot shrink.
   */
  private void ensureClaim(SessionVolume volume) {
    if (client.persistentVolumeClaims().inNamespace(SessionObjects.NAMESPACE).withName(volume.claimName()).get() == null) {
      apply(SessionObjects.claim(volume));
      log.info("volume {}: claimed as {} ({} GiB)", volume.volumeId(), volume.claimName(), volume.sizeGb());
    }
  }

  /**
   * Waits on a watch of the pod (not a poll): it returns as soon as the pod runs and is ready, or fails
   * for good, and heartbeats between watch slices so a dead worker is noticed within the heartbeat timeout.
   */
  @Override
  public PodState awaitRunning(String sessionId) {
    String name = SessionObjects.name(sessionId);
    var resource = client.pods().inNamespace(SessionObjects.NAMESPACE).withName(name);
    while (true) {
      Pod pod = resource.get();
      if (pod == null) {
        throw new IllegalStateException("pod " + name + " does not exist");
      }
      String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
      Activity.getExecutionContext().heartbeat(phase);
      if ("Failed".equals(phase) || "Succeeded".equals(phase)) {
        String reason = pod.getStatus().getReason() != null ? pod.getStatus().getReason() : phase;
        throw ApplicationFailure.newNonRetryableFailure("pod " + name + " " + phase.toLowerCase() + ": " + reason, "PodFailed");
      }
      if (runningAndReady(pod)) {
        return new PodState(phase, pod.getStatus().getPodIP(), pod.getSpec().getNodeName());
      }
      watchSlice(resource, p -> finished(p) || runningAndReady(p));
    }
  }

  @Override
  public String buildCheckpointImage(CheckpointImage checkpoint) {
    String name = SessionObjects.builderName(checkpoint.sessionId());
    var resource = client.pods().inNamespace(SessionObjects.NAMESPACE).withName(name);
    Pod builder = resource.get();
    if (builder != null && "Failed".equals(phaseOf(builder))) {
      resource.delete(); // an earlier attempt's: pods are immutable, start over
      builder = null;
    }
    if (builder == null) {
      builder = client.resource(SessionObjects.checkpointBuilder(checkpoint)).create();
      log.info("session {}: building {} from {} on {}", checkpoint.sessionId(), checkpoint.imageReference(),
          checkpoint.archive(), checkpoint.hostname());
    }
    while (true) {
      Pod pod = resource.get();
      if (pod == null) {
        throw new IllegalStateException("builder pod " + name + " disappeared");
      }
      String phase = phaseOf(pod);
      Activity.getExecutionContext().heartbeat(phase);
      if ("Succeeded".equals(phase)) {
        resource.delete();
        return checkpoint.imageReference();
      }
      if ("Failed".equals(phase)) {
        String reason = pod.getStatus().getReason() != null ? pod.getStatus().getReason() : "Failed";
        resource.delete();
        throw ApplicationFailure.newNonRetryableFailure("the checkpoint image of " + checkpoint.sessionId()
            + " could not be built on " + checkpoint.hostname() + ": " + reason, "CheckpointImageFailed");
      }
      watchSlice(resource, SessionClusterActivitiesImpl::finished);
    }
  }

  /** Waits on a watch until {@code decided} holds or the slice ends (the caller heartbeats between slices). */
  private void watchSlice(PodResource resource, Predicate<Pod> decided) {
    try {
      resource.waitUntilCondition(p -> p == null || decided.test(p), watchSlice.toMillis(), TimeUnit.MILLISECONDS);
    } catch (KubernetesClientTimeoutException stillPending) {
      // Nothing changed in this slice: heartbeat and watch again.
    } catch (KubernetesClientException watchFailed) {
      log.debug("a pod watch failed ({}); reading again", watchFailed.getMessage());
      pause(pollInterval);
    }
  }

  private static String phaseOf(Pod pod) {
    return pod.getStatus() == null ? null : pod.getStatus().getPhase();
  }

  private static boolean finished(Pod pod) {
    String phase = phaseOf(pod);
    return "Failed".equals(phase) || "Succeeded".equals(phase);
  }

  private static boolean runningAndReady(Pod pod) {
    return pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase())
        && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static void pause(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public PodState podState(String sessionId) {
    Pod pod = client.pods().inNamespace(SessionObjects.NAMESPACE).withName(SessionObjects.name(sessionId)).get();
    if (pod == null || pod.getMetadata().getDeletionTimestamp() != null) {
      return null;
    }
    return new PodState(pod.getStatus() == null ? null : pod.getStatus().getPhase(),
        pod.getStatus() == null ? null : pod.getStatus().getPodIP(), pod.getSpec().getNodeName());
  }

  @Override
  public String checkpoint(String sessionId) {
    String name = SessionObjects.name(sessionId);
    Pod pod = client.pods().inNamespace(SessionObjects.NAMESPACE).withName(name).get();
    if (pod == null || pod.getSpec().getNodeName() == null) {
      throw ApplicationFailure.newNonRetryableFailure("pod " + name + " is not running", "CheckpointImpossible");
    }
    // The kubelet checkpoint API (KEP-2008), reached through the apiserver's node proxy.
    String answer = client.raw(client.getConfiguration().getMasterUrl().replaceAll("/$", "") + "/api/v1/nodes/"
        + pod.getSpec().getNodeName() + "/proxy/checkpoint/" + SessionObjects.NAMESPACE + "/" + name + "/"
        + SessionObjects.CONTAINER, "POST", null);
    if (answer == null) {
      throw new IllegalStateException("the kubelet of " + pod.getSpec().getNodeName() + " refused the checkpoint");
    }
    int start = answer.indexOf("\"items\"");
    int quote = answer.indexOf('"', answer.indexOf('[', start) + 1);
    String archive = answer.substring(quote + 1, answer.indexOf('"', quote + 1));
    log.info("session {}: checkpointed to {}", sessionId, archive);
    return archive;
  }

  @Override
  public void deleteObjects(String sessionId) {
    String name = SessionObjects.name(sessionId);
    client.network().v1().ingresses().inNamespace(SessionObjects.NAMESPACE).withName(name).delete();
    client.services().inNamespace(SessionObjects.NAMESPACE).withName(name).delete();
    client.pods().inNamespace(SessionObjects.NAMESPACE).withName(name).delete();
  }

  private void apply(HasMetadata object) {
    client.resource(object).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
  }

}
