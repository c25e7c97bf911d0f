package io.gshare.activities.control;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.workflows.cluster.ClusterStateActivities;
import io.gshare.workflows.common.OperationProgress;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Cluster rows in Postgres, for the attach and detach workflows. Plain upserts and guarded updates. */
public class ClusterStateActivitiesImpl implements ClusterStateActivities {

  private final JdbcClient jdbc;
  private final ObjectMapper json;

  public ClusterStateActivitiesImpl(JdbcClient jdbc, ObjectMapper json) {
    this.jdbc = jdbc;
    this.json = json;
  }

  @Override
  public boolean inventorySeen(String clusterId, long sinceEpochMillis) {
    return jdbc.sql("select count(*) from clusters where id = :id and inventory_at >= :since")
        .param("id", clusterId).param("since", Timestamp.from(Instant.ofEpochMilli(sinceEpochMillis)))
        .query(Integer.class).single() > 0;
  }

  @Override
  public void markStatus(String clusterId, String status, String reason) {
    jdbc.sql("""
        update clusters set status = :status, status_reason = :reason,
               detached_at = case when :status = 'detached' then now() else null end,
               kubeconfig_ciphertext = case when :status = 'detached' then null else kubeconfig_ciphertext end
         where id = :id
        """)
        .param("id", clusterId).param("status", status).param("reason", reason).update();
  }

  @Override
  public List<String> busyReasons(String clusterId) {
    List<String> reasons = new ArrayList<>();
    List<String> sessions = jdbc.sql("""
        select id from sessions where cluster_id = :c and state not in ('terminated', 'failed') order by id
        """).param("c", clusterId).query(String.class).list();
    if (!sessions.isEmpty()) {
      reasons.add(sessions.size() + " session(s) not ended (" + String.join(", ", sessions.subList(0, Math.min(5, sessions.size())))
          + (sessions.size() > 5 ? ", ..." : "") + ")");
    }
    int allocations = jdbc.sql("""
        select count(*) from allocations a join nodes n on n.id = a.node_id
         where n.cluster_id = :c and a.released_at is null
        """).param("c", clusterId).query(Integer.class).single();
    if (allocations > 0) {
      reasons.add(allocations + " GPU allocation(s) not released");
    }
    return reasons;
  }

  @Override
  public void deleteInventory(String clusterId) {
    // gpu_devices go with their nodes; sessions and allocations keep names and uuids (FKs set null).
    jdbc.sql("delete from nodes where cluster_id = :c").param("c", clusterId).update();
  }

  @Override
  public void recordOperation(OperationProgress progress) {
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
        .param("status", progress.status()).param("steps", steps).param("error", progress.error())
        .update();
  }
}
