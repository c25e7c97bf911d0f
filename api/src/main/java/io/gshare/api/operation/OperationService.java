package io.gshare.api.operation;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.error.GshareException;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.OperationStep;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/**
 * Long operations (workflows) as the API shows them. A row is written when one starts; while it runs
 * its workflow's {@code progress} query answers; when it ends the workflow records its last state,
 * which outlives the execution (the embedded dev server forgets executions on restart).
 */
@Service
public class OperationService {

  private static final Logger log = LoggerFactory.getLogger(OperationService.class);

  public record Operation(String id, String kind, String objectId, String status, List<OperationStep> steps,
      String nextStep, String error, String source, Instant startedAt, Instant endedAt) {}

  private final JdbcClient jdbc;
  private final WorkflowClient client;
  private final ObjectMapper json;
  private final Access access;

  OperationService(JdbcClient jdbc, WorkflowClient client, ObjectMapper json, Access access) {
    this.jdbc = jdbc;
    this.client = client;
    this.json = json;
    this.access = access;
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
    if ("running".equals(row.status())) {
      Optional<OperationProgress> live = query(id);
      if (live.isPresent()) {
        OperationProgress p = live.get();
        return new Operation(id, row.kind(), row.objectId(), p.status(), p.steps(), p.nextStep(), p.error(), "workflow",
            started, ended);
      }
    }
    List<OperationStep> steps = parse(row.steps());
    OperationProgress stored = new OperationProgress(id, row.kind(), row.objectId(), row.status(), steps, row.error());
    return new Operation(id, row.kind(), row.objectId(), row.status(), steps, stored.nextStep(), row.error(), "postgres",
        started, ended);
  }

  private Optional<OperationProgress> query(String workflowId) {
    try {
      WorkflowStub stub = client.newUntypedWorkflowStub(workflowId);
      return Optional.ofNullable(stub.query("progress", OperationProgress.class));
    } catch (RuntimeException e) {
      // Gone (an embedded server restarted) or just finished: the stored record answers instead.
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
