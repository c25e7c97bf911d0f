package io.gshare.api.operation;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.api.temporal.TemporalProperties;
import io.gshare.workflows.common.Ids;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.OperationStep;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/**
 * Long operations (workflows) as the API shows them. A row is written when one starts; while it runs
 * its workflow's {@code progress} query answers; when it ends the workflow records its last state,
 * which outlives the execution (Temporal's retention ends, an execution is lost). Every operation on
 * an object is found in Temporal visibility by the object's search attribute, and every view links to
 * the execution in the Temporal Web UI.
 */
@Service
public class OperationService {

  private static final Logger log = LoggerFactory.getLogger(OperationService.class);

  public record Operation(String id, String kind, String objectId, String status, List<OperationStep> steps,
      String nextStep, String error, String source, Instant startedAt, Instant endedAt, String temporalUiUrl) {}

  /**
   * One execution on an object.
   *
   * @param type the workflow type ({@code ClusterAttach}, {@code Session}, ...)
   * @param status running, completed, failed, canceled, terminated, continued_as_new or timed_out
   */
  public record OperationSummary(String id, String runId, String type, String status, Instant startedAt,
      Instant endedAt, String temporalUiUrl) {}

  /** @param source {@code temporal_visibility}, or {@code postgres} where the server has no visibility */
  public record OperationList(String objectKind, String objectId, List<OperationSummary> items, String source) {}

  static final int LIST_LIMIT = 200;

  private final JdbcClient jdbc;
  private final WorkflowClient client;
  private final ObjectMapper json;
  private final Access access;
  private final TemporalProperties temporal;

  OperationService(JdbcClient jdbc, WorkflowClient client, ObjectMapper json, Access access, TemporalProperties temporal) {
    this.jdbc = jdbc;
    this.client = client;
    this.json = json;
    this.access = access;
    this.temporal = temporal;
  }

  /** Records that {@code workflowId} starts, replacing the record of an earlier run of the same id. */
  public void started(String workflowId, String kind, String objectId, String createdBy) {
    jdbc.sql("""
        insert into operations (id, kind, object_id, status, created_by, started_at)
        values (:id, :kind, :object, 'running', :by, now())
        on conflict (id) do update set kind = excluded.kind, object_id = excluded.object_id, status = 'running',
               steps = '[]'::jsonb, error = null, created_by = excluded.created_by, started_at = now(), ended_at = null
        """)
        .param("id", workflowId).param("kind", kind).param("object", objectId).param("by", createdBy).update();
  }

  public Operation get(Caller.User caller, String id) {
    record Row(String kind, String objectId, String status, String steps, String error, String createdBy,
        Timestamp startedAt, Timestamp endedAt) {}
    Row row = jdbc.sql("select * from operations where id = :id").param("id", id)
        .query((rs, n) -> new Row(rs.getString("kind"), rs.getString("object_id"), rs.getString("status"),
            rs.getString("steps"), rs.getString("error"), rs.getString("created_by"), rs.getTimestamp("started_at"),
            rs.getTimestamp("ended_at")))
        .optional().orElseThrow(() -> GshareException.notFound("operation", id));
    access.requireOwnerOrAdmin(caller, "operation", id, row.createdBy());
    Instant started = row.startedAt().toInstant();
    Instant ended = row.endedAt() == null ? null : row.endedAt().toInstant();
    String link = uiUrl(id, null);
    if ("running".equals(row.status())) {
      Optional<OperationProgress> live = query(id);
      if (live.isPresent()) {
        OperationProgress p = live.get();
        return new Operation(id, row.kind(), row.objectId(), p.status(), p.steps(), p.nextStep(), p.error(), "workflow",
            started, ended, link);
      }
    }
    List<OperationStep> steps = parse(row.steps());
    OperationProgress stored = new OperationProgress(id, row.kind(), row.objectId(), row.status(), steps, row.error());
    return new Operation(id, row.kind(), row.objectId(), row.status(), steps, stored.nextStep(), row.error(), "postgres",
        started, ended, link);
  }

  /**
   * Every operation on an object, newest first: from Temporal visibility by the object's search
   * attribute, or from the Postgres records when the server cannot list executions. Admins see any
   * object's; a user sees those on their own sessions and on themselves.
   */
  public OperationList listByObject(Caller.User caller, String objectKind, String objectId) {
    OperationObject kind = OperationObject.fromWire(objectKind).orElseThrow(() -> new GshareException(
        ProblemCode.VALIDATION_FAILED, "object_kind must be one of " + OperationObject.wireNames(),
        Map.of("errors", List.of(Map.of("field", "object_kind", "message", "must be one of " + OperationObject.wireNames())))));
    if (!Ids.isValid(objectId)) {
      // Also what keeps the id safe to put in a visibility query.
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "object_id must be an object id such as clu_0123abcd",
          Map.of("errors", List.of(Map.of("field", "object_id", "message", "must match [a-z0-9][a-z0-9_-]{0,62}"))));
    }
    authorizeList(caller, kind, objectId);
    try {
      String query = kind.searchAttribute().getName() + " = '" + objectId + "'";
      List<OperationSummary> items = client.listExecutions(query).limit(LIST_LIMIT)
          .map(e -> new OperationSummary(e.getExecution().getWorkflowId(), e.getExecution().getRunId(),
              e.getWorkflowType(), statusOf(e.getStatus()), e.getStartTime(), e.getCloseTime(),
              uiUrl(e.getExecution().getWorkflowId(), e.getExecution().getRunId())))
          .sorted(Comparator.comparing(OperationSummary::startedAt, Comparator.nullsLast(Comparator.reverseOrder())))
          .toList();
      return new OperationList(kind.wireName(), objectId, items, "temporal_visibility");
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED && e.getStatus().getCode() != Status.Code.INVALID_ARGUMENT) {
        throw e;
      }
      log.info("Temporal cannot list executions ({}); answering from the operation records", e.getStatus().getCode());
      return new OperationList(kind.wireName(), objectId, recorded(objectId), "postgres");
    }
  }

  private void authorizeList(Caller.User caller, OperationObject kind, String objectId) {
    if (caller.isAdmin()) {
      return;
    }
    String owner = switch (kind) {
      case USER -> objectId;
      case SESSION -> jdbc.sql("select user_id from sessions where id = :id").param("id", objectId)
          .query(String.class).optional().orElse(null);
      default -> null;
    };
    if (owner == null) {
      access.requireAdmin(caller, kind.wireName(), objectId);
    } else {
      access.requireOwnerOrAdmin(caller, kind.wireName(), objectId, owner);
    }
  }

  private List<OperationSummary> recorded(String objectId) {
    return jdbc.sql("""
            select id, kind, status, started_at, ended_at from operations where object_id = :object
            order by started_at desc limit :limit
            """)
        .param("object", objectId).param("limit", LIST_LIMIT)
        .query((rs, n) -> new OperationSummary(rs.getString("id"), null, rs.getString("kind"), rs.getString("status"),
            rs.getTimestamp("started_at").toInstant(),
            rs.getTimestamp("ended_at") == null ? null : rs.getTimestamp("ended_at").toInstant(),
            uiUrl(rs.getString("id"), null)))
        .list();
  }

  /**
   * The execution in the Temporal Web UI: its run when known, else the latest run of the id. Null when
   * no UI is configured ({@code gshare.temporal.ui-url}).
   */
  String uiUrl(String workflowId, String runId) {
    if (temporal.uiUrl() == null || temporal.uiUrl().isBlank()) {
      return null;
    }
    String base = temporal.uiUrl() + "/namespaces/" + encode(temporal.namespace()) + "/workflows/" + encode(workflowId);
    return runId == null ? base : base + "/" + encode(runId) + "/history";
  }

  private static String encode(String part) {
    return URLEncoder.encode(part, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String statusOf(WorkflowExecutionStatus status) {
    return switch (status) {
      case WORKFLOW_EXECUTION_STATUS_RUNNING -> "running";
      case WORKFLOW_EXECUTION_STATUS_COMPLETED -> "completed";
      case WORKFLOW_EXECUTION_STATUS_FAILED -> "failed";
      case WORKFLOW_EXECUTION_STATUS_CANCELED -> "canceled";
      case WORKFLOW_EXECUTION_STATUS_TERMINATED -> "terminated";
      case WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW -> "continued_as_new";
      case WORKFLOW_EXECUTION_STATUS_TIMED_OUT -> "timed_out";
      default -> "unknown";
    };
  }

  private Optional<OperationProgress> query(String workflowId) {
    try {
      WorkflowStub stub = client.newUntypedWorkflowStub(workflowId);
      return Optional.ofNullable(stub.query("progress", OperationProgress.class));
    } catch (RuntimeException e) {
      // Gone (past retention, or lost with its server) or just finished: the stored record answers instead.
      log.debug("no live progress for {}: {}", workflowId, e.toString());
      return Optional.empty();
    }
  }

  private List<OperationStep> parse(String steps) {
    try {
      return steps == null ? List.of() : json.readValue(steps, new TypeReference<List<OperationStep>>() {});
    } catch (Exception e) {
      return List.of();
    }
  }
}
