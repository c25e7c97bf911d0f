package io.gshare.core.cluster;

import io.gshare.workflows.cluster.ClusterStatus;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The writes and checks of a cluster's attach and detach: plain upserts and guarded updates. */
@Repository
public class ClusterLifecycleRepository {

  private final JdbcClient jdbc;

  ClusterLifecycleRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** Whether an inventory report arrived at or after the instant. */
  public boolean inventorySeen(String clusterId, Instant since) {
    return jdbc.sql("select count(*) from clusters where id = :id and inventory_at >= :since")
        .param("id", clusterId).param("since", Timestamp.from(since))
        .query(Integer.class).single() > 0;
  }

  /** A detached cluster forgets its kubeconfig and frees its name; any other status keeps both. */
  public void markStatus(String clusterId, ClusterStatus status, String reason) {
    jdbc.sql("""
        update clusters set status = :status, status_reason = :reason,
               detached_at = case when :status = 'detached' then now() else null end,
               kubeconfig_ciphertext = case when :status = 'detached' then null else kubeconfig_ciphertext end
         where id = :id
        """)
        .param("id", clusterId).param("status", status.wireName()).param("reason", reason).update();
  }

  /** Why the cluster cannot be detached now: unended sessions and unreleased allocations, named; empty if none. */
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

  /** Removes the cluster's nodes and their GPUs; sessions and allocations keep names and uuids (FKs set null). */
  public void deleteInventory(String clusterId) {
    jdbc.sql("delete from nodes where cluster_id = :c").param("c", clusterId).update();
  }

  /** The sealed kubeconfig, or null when the cluster has none (detached, or never given one). */
  public byte[] sealedKubeconfig(String clusterId) {
    return jdbc.sql("select kubeconfig_ciphertext from clusters where id = :id").param("id", clusterId)
        .query(byte[].class).optional().orElse(null);
  }

  /** Records which cluster the stored kubeconfig reaches (the uid of its kube-system namespace). */
  public void recordIdentity(String clusterId, String kubeSystemUid) {
    jdbc.sql("update clusters set kube_system_uid = :uid where id = :id and kube_system_uid is distinct from :uid")
        .param("id", clusterId).param("uid", kubeSystemUid).update();
  }
}
