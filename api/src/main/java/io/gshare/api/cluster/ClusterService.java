package io.gshare.api.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.activities.cluster.model.WorkerObjects;
import io.gshare.activities.control.ClusterStateActivitiesImpl;
import io.gshare.api.dev.DevProperties;
import io.gshare.api.operation.OperationService;
import io.gshare.api.security.Caller;
import io.gshare.core.cluster.Cluster;
import io.gshare.core.cluster.ClusterRepository;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.support.NewIds;
import io.gshare.workflows.cluster.ClusterAttachRequest;
import io.gshare.workflows.cluster.ClusterAttachWorkflow;
import io.gshare.workflows.cluster.ClusterDetachWorkflow;
import io.gshare.workflows.cluster.ClusterRerouteRequest;
import io.gshare.workflows.cluster.ClusterRerouteWorkflow;
import io.gshare.workflows.cluster.ClusterStatus;
import io.gshare.workflows.cluster.KubeconfigProof;
import io.gshare.workflows.cluster.KubeconfigProofRequest;
import io.gshare.workflows.cluster.KubeconfigProofWorkflow;
import io.gshare.workflows.cluster.TokenRotationWorkflow;
import io.gshare.workflows.common.SearchAttributes;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.session.SessionReroute;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Registers, attaches, changes and detaches clusters. The api validates and records; the attach and
 * detach workflows do the work on the clusters.
 */
@Service
public class ClusterService {

  static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  static final Pattern DOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
  static final Pattern REGISTRY = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?(:[0-9]{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)*");

  private static final Logger log = LoggerFactory.getLogger(ClusterService.class);

  /** The statuses of a cluster whose worker runs with its Secret in place (not attaching, not leaving). */
  private static final Set<ClusterStatus> TOKEN_RESTORABLE =
      EnumSet.of(ClusterStatus.CONNECTED, ClusterStatus.DEGRADED, ClusterStatus.UNREACHABLE);

  /** A started operation: where to follow it. */
  public record Started(Cluster cluster, String operationId) {}

  private final ClusterRepository clusters;
  private final KubeconfigCipher cipher;
  private final WorkflowClient client;
  private final OperationService operations;
  private final DevProperties dev;
  private final ClusterStateActivitiesImpl state;
  private final ObjectMapper json;
  private final Duration workerWait;
  private final TokenRotationProperties rotation;

  ClusterService(ClusterRepository clusters, KubeconfigCipher cipher, WorkflowClient client, OperationService operations, DevProperties dev, ClusterStateActivitiesImpl state, ObjectMapper json,
      ClusterWorkerProperties worker, TokenRotationProperties rotation) {
    this.rotation = rotation;
    this.clusters = clusters;
    this.cipher = cipher;
    this.client = client;
    this.operations = operations;
    this.dev = dev;
    this.state = state;
    this.json = json;
    this.workerWait = worker.attachWait();
  }

  public Started register(Caller.User caller, String name, String kubeconfig, String sessionDomain, String ingressNode,
      String checkpointRegistry, Map<String, Object> storageSettings) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "name must be a DNS label (lowercase letters, digits, -)");
    }
    requireDomain(sessionDomain);
    requireRegistry(checkpointRegistry);
    KubeconfigValidator.validate(kubeconfig, dev.allowLoopbackKubeconfig());
    String id = NewIds.next("clu");
    try {
      clusters.insert(id, name, cipher.encrypt(id, kubeconfig), sessionDomain, ingressNode,
          blankToNull(checkpointRegistry), toJson(storageSettings));
    } catch (DuplicateKeyException taken) {
      // The live-name unique index decides, so two registrations racing get one 409, not a 500.
      // cluster_id lets a re-run of hack/attach-cluster.sh attach that cluster again instead of stopping here.
      Map<String, Object> existing = clusters.liveIdByName(name).<Map<String, Object>>map(c -> Map.of("cluster_id", c))
          .orElse(Map.of());
      throw new GshareException(ProblemCode.CONFLICT, "a cluster named " + name + " is already registered"
          + (existing.isEmpty() ? "" : " as " + existing.get("cluster_id") + ": POST /api/v1/clusters/"
              + existing.get("cluster_id") + "/attach attaches it again"), existing);
    }
    return new Started(clusters.findById(id).orElseThrow(), startAttach(caller, id));
  }

  /** Attaches again: converges a cluster whose attach failed or whose worker was lost. */
  public Started reattach(Caller.User caller, String id) {
    Cluster cluster = live(id);
    return new Started(cluster, startAttach(caller, id));
  }

  public Cluster update(Caller.User caller, String id, String sessionDomain, String ingressNode, String checkpointRegistry) {
    Cluster cluster = live(id);
    if (sessionDomain != null) {
      requireDomain(sessionDomain);
    }
    requireRegistry(checkpointRegistry);
    clusters.updateSettings(id, sessionDomain == null ? cluster.sessionDomain() : sessionDomain,
        ingressNode == null ? cluster.ingressNode() : ingressNode,
        checkpointRegistry == null ? cluster.checkpointRegistry() : blankToNull(checkpointRegistry));
    return clusters.findById(id).orElseThrow();
  }

  /**
   * A cluster PATCH, all or nothing: every field is checked before anything is written (one transaction). A new
   * session domain or routing applies to new sessions at once and to live ones through the reroute operation
   * ({@code cluster-reroute-<id>}), which rewrites each running session's route and recorded URL.
   */
  @Transactional
  public Cluster change(Caller.User caller, String id, String sessionDomain, String ingressNode,
      String checkpointRegistry, String prometheusUrl, String hamiMonitorUrl, String sessionRouting,
      String sessionGateway, String kubeconfig, String kubeconfigIdentity) {
    Cluster cluster = live(id);
    String routing = sessionRouting == null ? cluster.sessionRouting() : sessionRouting;
    String gateway = sessionGateway == null ? cluster.sessionGateway() : blankToNull(sessionGateway);
    if (gateway != null && !gateway.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?/[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED,
          "session_gateway must name the cluster's Gateway as namespace/name, e.g. envoy-gateway-system/gshare");
    }
    if ("gateway-api".equals(routing) && gateway == null) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED,
          "session_routing gateway-api needs session_gateway: the namespace/name of the cluster's Gateway");
    }
    update(caller, id, sessionDomain, ingressNode, checkpointRegistry);
    updateActivitySources(caller, id, prometheusUrl, hamiMonitorUrl);
    clusters.updateSessionRouting(id, routing, gateway);
    Cluster changed = clusters.findById(id).orElseThrow();
    if (changed.sessionDomain() != null && (!changed.sessionDomain().equals(cluster.sessionDomain())
        || !routing.equals(cluster.sessionRouting()) || !Objects.equals(gateway, cluster.sessionGateway()))) {
      // Live sessions move too: their routes are rewritten and their URLs recorded, each by its own workflow.
      startReroute(caller, id, new SessionReroute(changed.sessionDomain(), clusters.sessionRouteOf(id)));
    }
    if (kubeconfig != null) {
      if (kubeconfigIdentity == null) {
        throw new IllegalArgumentException("a new kubeconfig needs its proof (proveSameCluster) first");
      }
      clusters.updateKubeconfig(id, cipher.encrypt(id, kubeconfig), kubeconfigIdentity);
      // The attach checks again with the new credentials (and redeploys the worker, which sessions never notice);
      // already running, it is a 409 and this whole change rolls back.
      startAttach(caller, id);
    }
    return clusters.findById(id).orElseThrow();
  }

  /** How long a PATCH waits for the proof of its kubeconfig (an unreachable apiserver answers within 30 s). */
  static final Duration PROOF_WAIT = Duration.ofSeconds(75);

  /**
   * Proves a kubeconfig replacing the cluster's reaches that same cluster (its kube-system namespace's uid), through
   * the workflow {@code KubeconfigProof}: the apiserver is called by a control worker, not by this request thread, and
   * the kubeconfig travels sealed with the data key. Writes nothing; answers the uid. 422 with the reason otherwise.
   */
  public String proveSameCluster(String id, String kubeconfig) {
    Cluster cluster = live(id);
    KubeconfigValidator.validate(kubeconfig, dev.allowLoopbackKubeconfig());
    KubeconfigProofWorkflow proof = client.newWorkflowStub(KubeconfigProofWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(WorkflowIds.kubeconfigProof(id, NewIds.next("kcp")))
        .setTaskQueue(TaskQueues.CONTROL)
        .setWorkflowExecutionTimeout(PROOF_WAIT)
        .setTypedSearchAttributes(io.temporal.common.SearchAttributes.newBuilder()
            .set(SearchAttributes.CLUSTER_ID, id).build())
        .build());
    KubeconfigProof answer;
    try {
      answer = WorkflowClient.execute(proof::prove, new KubeconfigProofRequest(id, cipher.encrypt(id, kubeconfig)))
          .get(PROOF_WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new GshareException(ProblemCode.TEMPORAL_UNAVAILABLE, "no control worker proved the new kubeconfig of "
          + cluster.name() + " within " + PROOF_WAIT.toSeconds() + "s; nothing was changed. Try again");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while proving the kubeconfig of " + id, e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
    }
    if (answer.proven()) {
      return answer.reached();
    }
    if (answer.reached() != null && answer.expected() != null) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, answer.refusal().replace("this cluster's",
          "cluster " + cluster.name() + "'s"), Map.of("kube_system_uid", answer.reached(), "expected", answer.expected()));
    }
    throw new GshareException(ProblemCode.VALIDATION_FAILED, answer.reached() == null ? answer.refusal()
        : "cannot prove the new kubeconfig reaches cluster " + cluster.name() + ": " + answer.refusal());
  }

  /**
   * Sets where the cluster's worker reads GPU activity: null keeps a source, blank removes it. The worker
   * learns the change in the answer to its next usage report.
   */
  public Cluster updateActivitySources(Caller.User caller, String id, String prometheusUrl, String hamiMonitorUrl) {
    Cluster cluster = live(id);
    if (prometheusUrl == null && hamiMonitorUrl == null) {
      return cluster;
    }
    // The cluster's own sources, not the defaults it shows meanwhile: a PATCH of one leaves the other as it was.
    Cluster.IdleReaping own = clusters.ownIdleSources(id).orElse(Cluster.IdleReaping.of(null, null));
    String prometheus = prometheusUrl == null ? own.prometheusUrl() : httpUrl("prometheus_url", prometheusUrl);
    String hami = hamiMonitorUrl == null ? own.hamiMonitorUrl() : httpUrl("hami_monitor_url", hamiMonitorUrl);
    clusters.updateActivitySources(id, prometheus, hami);
    return clusters.findById(id).orElseThrow();
  }

  /** Null for blank; otherwise an http(s) URL without query or fragment, kept without a trailing slash. */
  private static String httpUrl(String field, String value) {
    if (value.isBlank()) {
      return null;
    }
    try {
      URI uri = new URI(value.trim());
      if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null
          && uri.getQuery() == null && uri.getFragment() == null) {
        String text = uri.toString();
        return text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
      }
    } catch (URISyntaxException e) {
      // refused below
    }
    throw new GshareException(ProblemCode.VALIDATION_FAILED,
        field + " must be an http(s) URL without query, e.g. http://prometheus.monitoring.svc:9090");
  }

  public Started detach(Caller.User caller, String id) {
    Cluster cluster = live(id);
    List<String> busy = state.busyReasons(id);
    if (!busy.isEmpty()) {
      throw new GshareException(ProblemCode.CONFLICT, "cluster " + cluster.name() + " cannot be detached: "
          + String.join("; ", busy) + ". End or pause them first", Map.of("reasons", busy));
    }
    String workflowId = WorkflowIds.clusterDetach(id);
    operations.started(workflowId, "cluster.detach", id, caller.userId());
    ClusterDetachWorkflow workflow = client.newWorkflowStub(ClusterDetachWorkflow.class, options(workflowId, id));
    start(() -> WorkflowClient.start(workflow::detach, id), workflowId);
    return new Started(cluster, workflowId);
  }

  /** Rotates the cluster's operator token now ({@code token-rotation-<clusterId>}); 409 while one runs. */
  public Started rotateToken(Caller.User caller, String id) {
    Cluster cluster = live(id);
    String workflowId = WorkflowIds.tokenRotation(id);
    operations.started(workflowId, "token.rotation", id, caller.userId());
    TokenRotationWorkflow workflow = client.newWorkflowStub(TokenRotationWorkflow.class, options(workflowId, id));
    start(() -> WorkflowClient.start(workflow::rotate, rotation.request(id)), workflowId);
    return new Started(cluster, workflowId);
  }

  /**
   * The worker reported its token Secret gone (deleted outside gShare): a fresh token is written into it, as a
   * rotation of this one cluster ({@code token-rotation-<clusterId>}, followed like any other), unless one runs
   * already. The worker keeps the token it read, but without the Secret its next restart could not mount one.
   */
  public void restoreTokenSecret(String id) {
    Cluster cluster = clusters.findById(id).orElse(null);
    if (cluster == null || !TOKEN_RESTORABLE.contains(cluster.status())) {
      return; // attaching installs the Secret itself; detaching removes it on purpose
    }
    String workflowId = WorkflowIds.tokenRotation(id);
    if (operations.running(workflowId)) {
      return;
    }
    operations.started(workflowId, "token.rotation", id, null);
    TokenRotationWorkflow workflow = client.newWorkflowStub(TokenRotationWorkflow.class, options(workflowId, id));
    try {
      WorkflowClient.start(workflow::rotate, rotation.request(id));
      log.warn("cluster {}: its worker reports the Secret {} gone; writing a fresh token into it ({})", id,
          WorkerObjects.TOKEN_SECRET, workflowId);
    } catch (WorkflowExecutionAlreadyStarted running) {
      // A rotation started meanwhile writes the Secret too.
    }
  }

  private String startReroute(Caller.User caller, String id, SessionReroute change) {
    String workflowId = WorkflowIds.clusterReroute(id);
    operations.started(workflowId, "cluster.reroute", id, caller.userId());
    // The newest change wins: a reroute still running is replaced by this one, which moves every live session to
    // the newest domain (a session applies reroutes in the order they reach it, so the last one stays).
    WorkflowOptions options = WorkflowOptions.newBuilder(options(workflowId, id))
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING).build();
    ClusterRerouteWorkflow workflow = client.newWorkflowStub(ClusterRerouteWorkflow.class, options);
    WorkflowClient.start(workflow::reroute, new ClusterRerouteRequest(id, change));
    return workflowId;
  }

  private String startAttach(Caller.User caller, String id) {
    String workflowId = WorkflowIds.clusterAttach(id);
    operations.started(workflowId, "cluster.attach", id, caller.userId());
    ClusterAttachWorkflow workflow = client.newWorkflowStub(ClusterAttachWorkflow.class, options(workflowId, id));
    start(() -> WorkflowClient.start(workflow::attach, new ClusterAttachRequest(id, workerWait, 3)), workflowId);
    return workflowId;
  }

  private static void start(Runnable start, String workflowId) {
    try {
      start.run();
    } catch (WorkflowExecutionAlreadyStarted e) {
      throw new GshareException(ProblemCode.OPERATION_IN_PROGRESS, "operation " + workflowId + " is already running",
          Map.of("operation_id", workflowId));
    }
  }

  private static WorkflowOptions options(String workflowId, String clusterId) {
    return WorkflowOptions.newBuilder()
        .setWorkflowId(workflowId)
        .setTaskQueue(TaskQueues.CONTROL)
        // A second attach while one runs is refused (409), not merged: the caller follows the first.
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
        .setWorkflowExecutionTimeout(Duration.ofHours(1))
        .setTypedSearchAttributes(io.temporal.common.SearchAttributes.newBuilder()
            .set(SearchAttributes.CLUSTER_ID, clusterId).build())
        .build();
  }

  private Cluster live(String id) {
    Cluster cluster = clusters.findById(id).orElseThrow(() -> GshareException.notFound("cluster", id));
    if (cluster.status() == ClusterStatus.DETACHED) {
      throw GshareException.notFound("cluster", id);
    }
    return cluster;
  }

  /** A registry host[:port] with an optional repository path, as containerd pulls it: no scheme, no tag. */
  private static void requireRegistry(String registry) {
    if (registry != null && !registry.isBlank() && !REGISTRY.matcher(registry).matches()) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED,
          "checkpoint_registry must be host[:port][/path] without a scheme or tag, e.g. 10.10.0.191:5000/gshare-checkpoints");
    }
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }

  private static void requireDomain(String domain) {
    if (domain != null && !DOMAIN.matcher(domain).matches()) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED,
          "session_domain must be a host name, e.g. gshare.lab-c2.example.com");
    }
  }

  private String toJson(Map<String, Object> storage) {
    try {
      return storage == null ? null : json.writeValueAsString(storage);
    } catch (JsonProcessingException e) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "storage settings are not JSON");
    }
  }
}
