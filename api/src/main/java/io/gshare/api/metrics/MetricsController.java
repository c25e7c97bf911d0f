package io.gshare.api.metrics;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.Access;
import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.metrics.MetricQuery;
import io.gshare.core.metrics.MetricTarget;
import io.gshare.core.metrics.MetricTargets;
import io.gshare.core.metrics.MetricWindow;
import io.gshare.core.session.SessionRepository;
import io.gshare.workflows.common.Ids;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The named metric queries: admins ask any of them about a card, a node, a session or a cluster; a session's owner
 * asks the session ones about their own session. No PromQL is taken from a caller.
 */
@RestController
@Tag(name = "metrics")
class MetricsController {

  private final MetricTargets targets;
  private final MetricQueryService queries;
  private final SessionRepository sessions;
  private final Access access;
  private final Clock clock = Clock.systemUTC();

  MetricsController(MetricTargets targets, MetricQueryService queries, SessionRepository sessions, Access access) {
    this.targets = targets;
    this.queries = queries;
    this.sessions = sessions;
    this.access = access;
  }

  @GetMapping("/api/v1/metrics/{name}")
  @Operation(summary = "A named metric query (admins): gpu_utilization, gpu_memory_used, node_cpu, node_memory,"
      + " session_cpu, session_memory, vgpu_memory_used; about exactly one of gpu_uuid, node_id, session_id,"
      + " cluster_id; start/end RFC 3339 (default the last hour), step 15s|30s|1m|5m|15m|1h (default 1m)")
  @AdminOnly
  @ProblemResponses({ProblemCode.CLUSTER_UNREACHABLE, ProblemCode.CONFLICT, ProblemCode.TEMPORAL_UNAVAILABLE})
  MetricQueryService.Answer query(Caller.User caller, @PathVariable String name,
      @RequestParam(name = "cluster_id", required = false) String clusterId,
      @RequestParam(name = "node_id", required = false) String nodeId,
      @RequestParam(name = "gpu_uuid", required = false) String gpuUuid,
      @RequestParam(name = "session_id", required = false) String sessionId,
      @RequestParam(required = false) String start, @RequestParam(required = false) String end,
      @RequestParam(required = false) String step) {
    MetricQuery query = named(name);
    MetricWindow window = MetricWindow.parse(start, end, step, clock.instant());
    long given = Arrays.asList(clusterId, nodeId, gpuUuid, sessionId).stream().filter(Objects::nonNull).count();
    if (given != 1) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "give exactly one of gpu_uuid, node_id, session_id,"
          + " cluster_id (" + name + " is asked per " + query.scopeNames() + ")");
    }
    MetricTarget target = gpuUuid != null ? targets.gpu(requireUuid(gpuUuid))
        : nodeId != null ? targets.node(requireId("node_id", nodeId))
        : sessionId != null ? targets.session(requireId("session_id", sessionId))
        : targets.cluster(requireId("cluster_id", clusterId));
    return queries.run(query, target, window);
  }

  @GetMapping("/api/v1/sessions/{id}/metrics")
  @Operation(summary = "Your session's metric series (its owner, or an admin): name gpu_utilization,"
      + " gpu_memory_used, session_cpu, session_memory or vgpu_memory_used (default gpu_utilization);"
      + " start/end/step as for /api/v1/metrics")
  @ProblemResponses({ProblemCode.CLUSTER_UNREACHABLE, ProblemCode.CONFLICT, ProblemCode.TEMPORAL_UNAVAILABLE})
  MetricQueryService.Answer sessionMetrics(Caller.User caller, @PathVariable String id,
      @RequestParam(defaultValue = "gpu_utilization") String name, @RequestParam(required = false) String start,
      @RequestParam(required = false) String end, @RequestParam(required = false) String step) {
    SessionRepository.Session session = sessions.findById(requireId("id", id))
        .orElseThrow(() -> GshareException.notFound("session", id));
    access.requireOwnerOrAdmin(caller, "session", id, session.userId());
    MetricQuery query = named(name);
    if (!query.scopes().contains(MetricQuery.Scope.SESSION)) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, name + " is not a session's metric: ask one of "
          + String.join(", ", sessionQueries()));
    }
    return queries.run(query, targets.session(id), MetricWindow.parse(start, end, step, clock.instant()));
  }

  private static List<String> sessionQueries() {
    return Arrays.stream(MetricQuery.values()).filter(q -> q.scopes().contains(MetricQuery.Scope.SESSION))
        .map(MetricQuery::wireName).toList();
  }

  private static MetricQuery named(String name) {
    return MetricQuery.fromWire(name).orElseThrow(() -> new GshareException(ProblemCode.VALIDATION_FAILED,
        "no metric query '" + name + "': ask one of " + String.join(", ",
            Arrays.stream(MetricQuery.values()).map(MetricQuery::wireName).toList())));
  }

  private static String requireId(String what, String id) {
    if (!Ids.isValid(id)) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, what + " is not an id");
    }
    return id;
  }

  /** A GPU UUID as NVML names it (GPU-8-4-4-4-12 hex) or as the simulator does; nothing that could be PromQL. */
  private static String requireUuid(String uuid) {
    if (!uuid.matches("[A-Za-z0-9][A-Za-z0-9_-]{0,127}")) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "gpu_uuid is not a GPU UUID, e.g. GPU-5fd2c0a6-...");
    }
    return uuid;
  }
}
