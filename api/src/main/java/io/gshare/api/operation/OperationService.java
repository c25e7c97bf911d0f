package io.gshare.api.operation;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.gshare.api.temporal.TemporalProperties;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.operation.OperationRepository;
import io.gshare.core.session.SessionRepository;
import io.gshare.workflows.common.Ids;
import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.OperationStatus;
import io.gshare.workflows.common.OperationStep;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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

  public record Operation(String id, String kind, String objectId, OperationStatus status, List<OperationStep> steps,
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

  private final OperationRepository records;
  private final SessionRepository sessions;
  private final WorkflowClient client;
  private final ObjectMapper json;
  private final Access access;
  private final TemporalProperties temporal;

  OperationService(OperationRepository records, SessionRepository sessions, WorkflowClient client, ObjectMapper json,
      Access access, TemporalProperties temporal) {
    this.records = records;
    this.sessions = sessions;
    this.client = client;
    this.json = json;
    this.access = access;
    this.temporal = temporal;
  }

  /** Records that {@code workflowId} starts, replacing the record of an earlier run of the same id. */
  public void started(String workflowId, String kind, String objectId, String createdBy) {
    records.started(workflowId, kind, objectId, createdBy);
  }

  /**
   * Whether {@code workflowId} runs, by its record: running and started within the hour every operation's
   * workflow is bounded by (a record left running by a crash between the two does not block for ever).
   */
  public boolean running(String workflowId) {
    return records.findById(workflowId).filter(r -> r.status() == OperationStatus.RUNNING && r.startedAt() != null
        && r.startedAt().isAfter(Instant.now().minus(Duration.ofHours(1)))).isPresent();
  }

  public Operation get(Caller.User caller, String id) {
    OperationRepository.Row row = records.findById(id).orElseThrow(() -> GshareException.notFound("operation", id));
    access.requireOwnerOrAdmin(caller, "operation", id, row.createdBy());
    Instant started = row.startedAt();
    Instant ended = row.endedAt();
    String link = uiUrl(id, null);
    if (row.status() == OperationStatus.RUNNING) {
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
      case SESSION -> sessions.findById(objectId).map(SessionRepository.Session::userId).orElse(null);
      default -> null;
    };
    if (owner == null) {
      access.requireAdmin(caller, kind.wireName(), objectId);
    } else {
      access.requireOwnerOrAdmin(caller, kind.wireName(), objectId, owner);
    }
  }

  private List<OperationSummary> recorded(String objectId) {
    return records.findByObject(objectId, LIST_LIMIT).stream()
        .map(r -> new OperationSummary(r.id(), null, r.kind(), r.status().wireName(), r.startedAt(), r.endedAt(), uiUrl(r.id(), null)))
        .toList();
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
