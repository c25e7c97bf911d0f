package io.gshare.activities.cluster;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.KubernetesClientTimeoutException;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.gshare.activities.cluster.model.SessionObjects;
import io.gshare.workflows.common.FailureTypes;
import io.gshare.workflows.common.WireEnum;
import io.gshare.workflows.kube.Labels;
import io.gshare.workflows.session.CheckpointImage;
import io.gshare.workflows.session.PodPhase;
import io.gshare.workflows.session.PodState;
import io.gshare.workflows.session.SessionClusterActivities;
import io.gshare.workflows.session.SessionPod;
import io.gshare.workflows.session.SessionRoute;
import io.gshare.workflows.session.SessionVolume;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A session's objects, created and removed by its cluster's worker with the in-cluster client. */
public class SessionClusterActivitiesImpl implements SessionClusterActivities {

  private static final Logger log = LoggerFactory.getLogger(SessionClusterActivitiesImpl.class);
  static final String FIELD_MANAGER = "gshare-cluster-worker";

  private final KubernetesClient client;
  /** How long the kubelet may take to dump a container (GPU memory included). */
  static final Duration CHECKPOINT_TIMEOUT = Duration.ofMinutes(10);

  private final Duration pollInterval;
  private final Duration watchSlice;
  /** How long a deleted pod may take to go (its grace period, 30 s by default, and some). */
  private final Duration deletionWait = Duration.ofSeconds(45);
  private static final Duration DELETION_READ_AGAIN = Duration.ofSeconds(5);
  /** How long HAMi may refuse a card as cordoned before the start gives up (its scheduler retries meanwhile). */
  private final Duration cordonRefusalGrace;
  private KubernetesClient checkpointClient;

  /**
   * @param pollInterval the pause before reading again after a watch failed
   * @param watchSlice how long one watch waits before the activity heartbeats (well under its heartbeat timeout)
   * @param cordonRefusalGrace how long a pod may stay refused with HAMi's {@code CardCordoned} before the start fails
   */
  public SessionClusterActivitiesImpl(KubernetesClient client, Duration pollInterval, Duration watchSlice,
      Duration cordonRefusalGrace) {
    this.client = client;
    this.pollInterval = pollInterval;
    this.watchSlice = watchSlice;
    this.cordonRefusalGrace = cordonRefusalGrace;
  }

  public SessionClusterActivitiesImpl(KubernetesClient client, Duration pollInterval, Duration watchSlice) {
    this(client, pollInterval, watchSlice, Duration.ofSeconds(20));
  }

  public SessionClusterActivitiesImpl(KubernetesClient client) {
    this(client, Duration.ofSeconds(1), Duration.ofSeconds(10));
  }

  @Override
  public void ensureObjects(SessionPod session) {
    apply(new NamespaceBuilder().withNewMetadata()
        .withName(SessionObjects.NAMESPACE).withLabels(Labels.managedByGshare().toMap()).endMetadata().build());
    if (session.volume() != null) {
      ensureClaim(session.volume());
    }
    var resource = client.pods().inNamespace(SessionObjects.NAMESPACE).withName(SessionObjects.name(session.sessionId()));
    if (current(resource, PodPhase.FAILED) == null) {
      try {
        apply(SessionObjects.pod(session));
      } catch (KubernetesClientException refused) {
        throw SchedulerRefusals.podRefused(refused).orElseThrow(() -> refused);
      }
    }
    apply(SessionObjects.service(session));
    if (session.routeOrDefault().routing() == SessionRoute.Routing.GATEWAY_API) {
      applyGeneric(SessionObjects.BACKEND, SessionObjects.authBackend(session));
      applyGeneric(SessionObjects.HTTP_ROUTE, SessionObjects.httpRoute(session));
      applyGeneric(SessionObjects.SECURITY_POLICY, SessionObjects.securityPolicy(session));
      log.info("session {}: pod, service, HTTPRoute and SecurityPolicy in place on {}", session.sessionId(),
          session.placement().hostname());
      return;
    }
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

  @Override
  public PodState startPod(SessionPod session) {
    ensureObjects(session);
    return awaitRunning(session.sessionId());
  }

  /**
   * Waits on a watch of the pod (not a poll): it returns as soon as the pod runs and is ready, or fails
   * for good, and heartbeats between watch slices so a dead worker is noticed within the heartbeat timeout.
   */
  @Override
  public PodState awaitRunning(String sessionId) {
    String name = SessionObjects.name(sessionId);
    var resource = client.pods().inNamespace(SessionObjects.NAMESPACE).withName(name);
    long cordonRefusedSince = -1;
    while (true) {
      Pod pod = resource.get();
      if (pod == null) {
        throw new IllegalStateException("pod " + name + " does not exist");
      }
      var staleCordon = SchedulerRefusals.staleCordon(pod);
      if (staleCordon.isEmpty()) {
        cordonRefusedSince = -1;
      } else if (cordonRefusedSince < 0) {
        cordonRefusedSince = System.nanoTime();
        log.info("pod {}: HAMi refuses a GPU as cordoned; failing in {} s unless it starts", name,
            cordonRefusalGrace.toSeconds());
      } else if (System.nanoTime() - cordonRefusedSince >= cordonRefusalGrace.toNanos()) {
        throw ApplicationFailure.newNonRetryableFailure(staleCordon.get(), FailureTypes.CARD_CORDON_NOT_SEEN);
      }
      PodPhase phase = phaseOf(pod);
      Activity.getExecutionContext().heartbeat(WireEnum.wireNameOrNull(phase));
      if (phase != null && phase.ended()) {
        String reason = pod.getStatus().getReason() != null ? pod.getStatus().getReason() : phase.wireName();
        throw ApplicationFailure.newNonRetryableFailure("pod " + name + " " + phase.wireName().toLowerCase(Locale.ROOT) + ": " + reason, FailureTypes.POD_FAILED);
      }
      if (runningAndReady(pod)) {
        return new PodState(phase, pod.getStatus().getPodIP(), pod.getSpec().getNodeName());
      }
      watchSlice(resource, p -> finished(p) || runningAndReady(p),
          cordonRefusedSince < 0 ? watchSlice : min(watchSlice, cordonRefusalGrace));
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /**
   * A retry finds this checkpoint's builder and waits on it (or, finished, answers at once: its first
   * attempt pushed the image and removed the archive). The builder stays until the pause deletes the
   * session's pod, which removes it too.
   */
  @Override
  public String buildCheckpointImage(CheckpointImage checkpoint) {
    String name = SessionObjects.builderName(checkpoint.sessionId());
    var resource = client.pods().inNamespace(SessionObjects.NAMESPACE).withName(name);
    Pod builder = current(resource, PodPhase.FAILED);
    if (builder != null && !checkpoint.imageReference().equals(imageOf(builder))) {
      delete(resource); // another pause's builder: each pause has its own tag
      builder = null;
    }
    if (builder == null) {
      client.resource(SessionObjects.checkpointBuilder(checkpoint)).create();
      log.info("session {}: building {} from {} on {}", checkpoint.sessionId(), checkpoint.imageReference(),
          checkpoint.archive(), checkpoint.hostname());
    }
    while (true) {
      Pod pod = resource.get();
      if (pod == null) {
        throw new IllegalStateException("builder pod " + name + " disappeared");
      }
      PodPhase phase = phaseOf(pod);
      Activity.getExecutionContext().heartbeat(WireEnum.wireNameOrNull(phase));
      if (phase == PodPhase.SUCCEEDED) {
        return checkpoint.imageReference();
      }
      if (phase == PodPhase.FAILED) {
        String reason = pod.getStatus().getReason() != null ? pod.getStatus().getReason() : phase.wireName();
        throw ApplicationFailure.newNonRetryableFailure("the checkpoint image of " + checkpoint.sessionId()
            + " could not be built on " + checkpoint.hostname() + ": " + reason, "CheckpointImageFailed");
      }
      watchSlice(resource, SessionClusterActivitiesImpl::finished);
    }
  }

  /** Waits on a watch until {@code decided} holds or the slice ends (the caller heartbeats between slices). */
  private void watchSlice(PodResource resource, Predicate<Pod> decided) {
    watchSlice(resource, decided, watchSlice);
  }

  private void watchSlice(PodResource resource, Predicate<Pod> decided, Duration slice) {
    try {
      resource.waitUntilCondition(p -> p == null || decided.test(p), slice.toMillis(), TimeUnit.MILLISECONDS);
    } catch (KubernetesClientTimeoutException stillPending) {
      // Nothing changed in this slice: heartbeat and watch again.
    } catch (KubernetesClientException watchFailed) {
      log.debug("a pod watch failed ({}); reading again", watchFailed.getMessage());
      pause(pollInterval);
    }
  }

  /**
   * The pod as it stands, or null once any stale one is gone: a pod being deleted (a pause moments
   * ago), or one in {@code stalePhase} from an earlier attempt — pods are immutable, so it is deleted
   * and a new one made. Waits for a deletion to finish; throws (retryably) if it takes too long.
   */
  private Pod current(PodResource resource, PodPhase stalePhase) {
    Pod pod = resource.get();
    if (pod != null && (pod.getMetadata().getDeletionTimestamp() != null || stalePhase == phaseOf(pod))) {
      delete(resource);
      return null;
    }
    return pod;
  }

  /**
   * Deletes the pod and waits until it is gone, so nothing mistakes the old one for a new one. The wait watches in
   * short slices and reads the pod between them: a fault-suite run once saw the watch miss a deletion and sit out
   * the whole wait for a pod long gone.
   */
  private void delete(PodResource resource) {
    resource.delete();
    long deadline = System.nanoTime() + deletionWait.toNanos();
    while (resource.get() != null) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new IllegalStateException("a pod of the session is still terminating after "
            + deletionWait.toSeconds() + "s; trying again");
      }
      watchSlice(resource, p -> false, min(Duration.ofNanos(left), DELETION_READ_AGAIN));
    }
  }

  private static String imageOf(Pod pod) {
    return pod.getSpec().getContainers().get(0).getEnv().stream().filter(e -> "IMAGE".equals(e.getName()))
        .map(EnvVar::getValue).findFirst().orElse(null);
  }

  private static PodPhase phaseOf(Pod pod) {
    return pod.getStatus() == null ? null : PodPhase.of(pod.getStatus().getPhase());
  }

  private static boolean finished(Pod pod) {
    PodPhase phase = phaseOf(pod);
    return phase != null && phase.ended();
  }

  private static boolean runningAndReady(Pod pod) {
    return phaseOf(pod) == PodPhase.RUNNING
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
    return new PodState(phaseOf(pod),
        pod.getStatus() == null ? null : pod.getStatus().getPodIP(), pod.getSpec().getNodeName());
  }

  @Override
  public String checkpoint(String sessionId) {
    String name = SessionObjects.name(sessionId);
    Pod pod = client.pods().inNamespace(SessionObjects.NAMESPACE).withName(name).get();
    if (pod == null || pod.getSpec().getNodeName() == null) {
      throw ApplicationFailure.newNonRetryableFailure("pod " + name + " is not running", FailureTypes.CHECKPOINT_IMPOSSIBLE);
    }
    // The kubelet checkpoint API (KEP-2008), reached through the apiserver's node proxy. Dumping GPU
    // memory takes long: the kubelet gets its own timeout, and the call a client that waits as long.
    String answer = checkpointClient().raw(client.getConfiguration().getMasterUrl().replaceAll("/$", "") + "/api/v1/nodes/"
        + pod.getSpec().getNodeName() + "/proxy/checkpoint/" + SessionObjects.NAMESPACE + "/" + name + "/"
        + SessionObjects.CONTAINER + "?timeout=" + CHECKPOINT_TIMEOUT.toSeconds(), "POST", null);
    if (answer == null) {
      throw new IllegalStateException("the kubelet of " + pod.getSpec().getNodeName() + " refused the checkpoint");
    }
    // {"items": ["/var/lib/kubelet/checkpoints/checkpoint-<pod>-<container>-<time>.tar"]}
    Object items = client.getKubernetesSerialization().unmarshal(answer, Map.class).get("items");
    if (!(items instanceof List<?> archives) || archives.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure("the kubelet answered no checkpoint archive: " + answer,
          FailureTypes.CHECKPOINT_IMPOSSIBLE);
    }
    String archive = String.valueOf(archives.get(0));
    log.info("session {}: checkpointed to {}", sessionId, archive);
    return archive;
  }

  @Override
  public void applyRoute(SessionPod session) {
    String name = SessionObjects.name(session.sessionId());
    if (session.routeOrDefault().routing() == SessionRoute.Routing.GATEWAY_API) {
      applyGeneric(SessionObjects.BACKEND, SessionObjects.authBackend(session));
      applyGeneric(SessionObjects.HTTP_ROUTE, SessionObjects.httpRoute(session));
      applyGeneric(SessionObjects.SECURITY_POLICY, SessionObjects.securityPolicy(session));
      client.network().v1().ingresses().inNamespace(SessionObjects.NAMESPACE).withName(name).delete();
    } else {
      apply(SessionObjects.ingress(session));
      deleteGatewayRoute(name);
    }
    log.info("session {}: routed at https://{}/s/{}/ ({})", session.sessionId(), session.sessionDomain(),
        session.sessionId(), session.routeOrDefault().routing().wireName());
  }

  /**
   * The session's HTTPRoute and SecurityPolicy, whatever the cluster's routing was when the session started (it may
   * have changed since). On a cluster without the Gateway API or Envoy Gateway the kinds are not served: nothing to
   * remove.
   */
  private void deleteGatewayRoute(String name) {
    for (var type : List.of(SessionObjects.SECURITY_POLICY, SessionObjects.HTTP_ROUTE)) {
      try {
        client.genericKubernetesResources(context(type)).inNamespace(SessionObjects.NAMESPACE).withName(name).delete();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw e;
        }
      }
    }
  }

  /** Also removes a finished checkpoint builder; waits until the pod is gone so a resume never finds it. */
  @Override
  public void deleteObjects(String sessionId) {
    String name = SessionObjects.name(sessionId);
    client.network().v1().ingresses().inNamespace(SessionObjects.NAMESPACE).withName(name).delete();
    deleteGatewayRoute(name);
    client.services().inNamespace(SessionObjects.NAMESPACE).withName(name).delete();
    client.pods().inNamespace(SessionObjects.NAMESPACE).withName(SessionObjects.builderName(sessionId)).delete();
    delete(client.pods().inNamespace(SessionObjects.NAMESPACE).withName(name));
  }

  /** A client like the worker's whose requests may last as long as a checkpoint; made on first use. */
  private synchronized KubernetesClient checkpointClient() {
    if (checkpointClient == null) {
      checkpointClient = new KubernetesClientBuilder()
          .withConfig(new ConfigBuilder(client.getConfiguration())
              .withRequestTimeout((int) CHECKPOINT_TIMEOUT.plusMinutes(1).toMillis()).build())
          .build();
    }
    return checkpointClient;
  }

  private void applyGeneric(SessionObjects.Kind type, GenericKubernetesResource object) {
    client.genericKubernetesResources(context(type)).inNamespace(SessionObjects.NAMESPACE).resource(object)
        .fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
  }

  /** The client's description of a kind the model names, with its plural: no discovery round trip. */
  public static ResourceDefinitionContext context(SessionObjects.Kind type) {
    return new ResourceDefinitionContext.Builder().withGroup(type.group())
        .withVersion(type.version()).withKind(type.kind()).withPlural(type.plural()).withNamespaced(true).build();
  }

  private void apply(HasMetadata object) {
    client.resource(object).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
  }

}
