package io.gshare.api.cluster;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.cluster.Cluster;
import io.gshare.core.cluster.ClusterRepository;
import io.gshare.core.cluster.OperatorTokenRepository;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.workflows.cluster.ClusterDescription;
import io.gshare.workflows.cluster.ClusterProbeResult;
import io.gshare.workflows.cluster.GpuDeviceInfo;
import io.gshare.workflows.cluster.NodeInfo;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** Every cluster endpoint is for admins. */
@RestController
@AdminOnly
@RequestMapping("/api/v1/clusters")
@Tag(name = "clusters")
class ClusterController {

  private final ClusterRepository clusters;
  private final ClusterService service;
  private final ConnectionTestService connectionTests;
  private final OperatorTokenRepository operatorTokens;

  ClusterController(ClusterRepository clusters, ClusterService service, ConnectionTestService connectionTests,
      OperatorTokenRepository operatorTokens) {
    this.operatorTokens = operatorTokens;
    this.clusters = clusters;
    this.service = service;
    this.connectionTests = connectionTests;
  }

  record ClusterList(List<Cluster> items) {}

  record NewCluster(@NotBlank @Size(max = 63) String name, @NotBlank @Size(max = 256 * 1024) String kubeconfig,
      @Size(max = 253) String sessionDomain, @Size(max = 253) String ingressNode,
      @Size(max = 500) String checkpointRegistry, Map<String, Object> storage) {}

  /**
   * A blank {@code checkpoint_registry} removes it (lossless pauses become cold). {@code prometheus_url} and
   * {@code hami_monitor_url} are where the worker reads GPU activity for the idle reaper (Prometheus first);
   * a blank one removes it, and with neither idle reaping is off.
   */
  record ClusterChange(@Size(max = 253) String sessionDomain, @Size(max = 253) String ingressNode,
      @Size(max = 500) String checkpointRegistry, @Size(max = 500) String prometheusUrl,
      @Size(max = 500) String hamiMonitorUrl,
      @Pattern(regexp = "ingress-nginx|gateway-api") String sessionRouting,
      @Size(max = 317) String sessionGateway, @Size(max = 1_048_576) String kubeconfig) {}

  record OperationRef(String id, String href) {}

  @Schema(name = "ClusterOperationAccepted")
  record Accepted(Cluster cluster, OperationRef operation) {}

  @PostMapping
  @ResponseStatus(HttpStatus.ACCEPTED)
  @Operation(summary = "Register a cluster and start its attach workflow (admins); follow the operation")
  @ProblemResponses({ProblemCode.CONFLICT, ProblemCode.OPERATION_IN_PROGRESS, ProblemCode.TEMPORAL_UNAVAILABLE})
  Accepted register(Caller.User caller, @Valid @RequestBody NewCluster body) {
    return accepted(service.register(caller, body.name(), body.kubeconfig(), body.sessionDomain(), body.ingressNode(),
        body.checkpointRegistry(), body.storage()));
  }

  @GetMapping
  @Operation(summary = "List registered clusters (admins); detached ones with include_detached=true")
  ClusterList list(Caller.User caller, @RequestParam(name = "include_detached", defaultValue = "false") boolean all) {
    return new ClusterList(clusters.findAll(all));
  }

  @GetMapping("/{id}")
  @Operation(summary = "One cluster: status, why, session domain, worker last seen, node, offline node and GPU counts")
  Cluster get(Caller.User caller, @PathVariable String id) {
    return clusters.findById(id).orElseThrow(() -> GshareException.notFound("cluster", id));
  }

  @PatchMapping("/{id}")
  @Operation(summary = "Change a cluster's session_domain, ingress node, checkpoint registry, idle-activity sources"
      + " (prometheus_url, hami_monitor_url), session routing (session_routing ingress-nginx | gateway-api, with"
      + " session_gateway namespace/name) or kubeconfig (admins); all or nothing. A new session domain or routing moves"
      + " the cluster's live sessions too (operation cluster-reroute-{id}: each running session's route and URL). A new kubeconfig must reach the same"
      + " cluster (its kube-system namespace uid; 422 otherwise); it replaces the stored one in place and the attach"
      + " checks run again (operation cluster-attach-{id}), with no detach and no session interrupted")
  @ProblemResponses({ProblemCode.OPERATION_IN_PROGRESS, ProblemCode.TEMPORAL_UNAVAILABLE})
  Cluster update(Caller.User caller, @PathVariable String id, @Valid @RequestBody ClusterChange body) {
    // A new kubeconfig is proven (it reaches this very cluster) before anything is written, outside the transaction.
    String identity = body.kubeconfig() == null ? null : service.proveSameCluster(id, body.kubeconfig());
    return service.change(caller, id, body.sessionDomain(), body.ingressNode(), body.checkpointRegistry(),
        body.prometheusUrl(), body.hamiMonitorUrl(), body.sessionRouting(), body.sessionGateway(), body.kubeconfig(),
        identity);
  }

  @PostMapping("/{id}/attach")
  @ResponseStatus(HttpStatus.ACCEPTED)
  @Operation(summary = "Attach again (admins): converges a cluster whose attach failed or whose worker is gone")
  @ProblemResponses({ProblemCode.OPERATION_IN_PROGRESS, ProblemCode.TEMPORAL_UNAVAILABLE})
  Accepted reattach(Caller.User caller, @PathVariable String id) {
    return accepted(service.reattach(caller, id));
  }

  @PostMapping("/{id}/rotate-token")
  @ResponseStatus(HttpStatus.ACCEPTED)
  @Operation(summary = "Rotate the cluster's operator token now (admins): a new token into its Secret, confirmed when its worker uses it")
  @ProblemResponses({ProblemCode.OPERATION_IN_PROGRESS, ProblemCode.TEMPORAL_UNAVAILABLE})
  Accepted rotateToken(Caller.User caller, @PathVariable String id) {
    return accepted(service.rotateToken(caller, id));
  }

  @DeleteMapping("/{id}")
  @ResponseStatus(HttpStatus.ACCEPTED)
  @Operation(summary = "Detach a cluster (admins); refused with 409 while sessions run or GPUs are allocated on it")
  @ProblemResponses({ProblemCode.CONFLICT, ProblemCode.OPERATION_IN_PROGRESS, ProblemCode.TEMPORAL_UNAVAILABLE})
  Accepted detach(Caller.User caller, @PathVariable String id) {
    return accepted(service.detach(caller, id));
  }

  private static Accepted accepted(ClusterService.Started started) {
    return new Accepted(started.cluster(),
        new OperationRef(started.operationId(), "/api/v1/operations/" + started.operationId()));
  }

  record GpuView(String uuid, int index, String model, long memoryMib, int splitCount, boolean healthy) {}

  record NodeView(String name, boolean ready, boolean schedulable, String gpuMode, boolean losslessPause, List<GpuView> gpus) {}

  /**
   * The cluster's operator token: the one last written into its Secret and the one its worker uses.
   *
   * @param expiresAt expiry of the token last written (null when none was recorded)
   * @param lastRotatedAt when a token was last written into the Secret (attach or rotation)
   * @param workerTokenExpiresAt expiry of the token the worker last authenticated with
   * @param workerUsesLatest whether that is the token last written
   */
  record TokenView(String jti, Instant issuedAt, Instant expiresAt, Instant lastRotatedAt,
      String workerJti, Instant workerTokenExpiresAt, Instant workerSeenAt, boolean workerUsesLatest) {}

  /** What the seed's connection test shows, plus what the worker saw and the operator token. */
  record ConnectionTest(
      String status, Map<String, Boolean> checks, String reason, String apiserverVersion, Boolean simulated,
      Integer gpuCount, List<NodeView> nodes, TokenView operatorToken) {}

  @PostMapping("/{id}/connection-test")
  @Operation(summary = "Ask the cluster's worker to describe its cluster and check the runtime (RuntimeClass nvidia, HAMi, ingress)")
  @ProblemResponses({ProblemCode.CLUSTER_UNREACHABLE, ProblemCode.TEMPORAL_UNAVAILABLE})
  ConnectionTest connectionTest(Caller.User caller, @PathVariable String id,
      @RequestBody(required = false) Map<String, Object> ignored) {
    ClusterProbeResult result = connectionTests.test(id);
    TokenView token = operatorTokens.find(id).map(t -> new TokenView(t.jti(), t.issuedAt(), t.expiresAt(), t.rotatedAt(),
        t.seenJti(), t.seenExpiresAt(), t.seenAt(), t.jti() != null && t.jti().equals(t.seenJti()))).orElse(null);
    ClusterDescription d = result.description();
    if (d == null) {
      return new ConnectionTest(result.status(), result.checks(), result.reason(), null, null, null, List.of(), token);
    }
    return new ConnectionTest(result.status(), result.checks(), result.reason(), d.serverVersion(), d.simulated(),
        d.gpuCount(), d.nodes().stream().map(ClusterController::view).toList(), token);
  }

  private static NodeView view(NodeInfo n) {
    return new NodeView(n.name(), n.ready(), n.schedulable(), n.gpuMode(), n.losslessPause(),
        n.gpus().stream().map(ClusterController::view).toList());
  }

  private static GpuView view(GpuDeviceInfo g) {
    return new GpuView(g.uuid(), g.index(), g.model(), g.memoryMib(), g.splitCount(), g.healthy());
  }
}
