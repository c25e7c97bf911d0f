package io.gshare.core.operation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.OperationStatus;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The Postgres record of each long operation (a workflow): written when it starts and when it ends, so
 * it outlives the execution (past retention, or lost with its server).
 */
@Repository
public class OperationRepository {

  /** @param steps the steps as JSON */
  public record Row(String id, String kind, String objectId, OperationStatus status, String steps, String error, String createdBy,
      Instant startedAt, Instant endedAt) {}

  private final JdbcClient jdbc;
  private final ObjectMapper json;

  OperationRepository(JdbcClient jdbc, ObjectMapper json) {
    this.jdbc = jdbc;
    this.json = json;
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

  /** Records where an operation stands (its workflow calls this when it ends); idempotent. */
  public void record(OperationProgress progress) {
    String steps;
    try {
      steps = json.writeValueAsString(progress.steps());
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e);
    }
    jdbc.sql("""
        insert into operations (id, kind, object_id, status, steps, error, started_at, ended_at)
        values (:id, :kind, :object, :status, cast(:steps as jsonb), :error, now(),
                case when :status = 'running' then null else now() end)
        on conflict (id) do update set status = excluded.status, steps = excluded.steps, error = excluded.error,
               ended_at = excluded.ended_at
        """)
        .param("id", progress.operationId()).param("kind", progress.kind()).param("object", progress.objectId())
        .param("status", progress.status().wireName()).param("steps", steps).param("error", progress.error())
        .update();
  }

  public Optional<Row> findById(String id) {
    return jdbc.sql("select * from operations where id = :id").param("id", id)
        .query(OperationRepository::map)
        .optional();
  }

  /** The records of operations on an object, newest first. */
  public List<Row> findByObject(String objectId, int limit) {
    return jdbc.sql("select * from operations where object_id = :object order by started_at desc limit :limit")
        .param("object", objectId).param("limit", limit)
        .query(OperationRepository::map)
        .list();
  }

  private static Row map(ResultSet rs, int row) throws SQLException {
    return new Row(rs.getString("id"), rs.getString("kind"), rs.getString("object_id"),
        OperationStatus.fromWire(rs.getString("status")), rs.getString("steps"), rs.getString("error"), rs.getString("created_by"), instant(rs.getTimestamp("started_at")),
        instant(rs.getTimestamp("ended_at")));
  }

  private static Instant instant(Timestamp ts) {
    return ts == null ? null : ts.toInstant();
  }
}
