package io.gshare.core.placement;

import io.gshare.core.support.AdvisoryLocks;
import io.gshare.core.support.NewIds;
import io.gshare.workflows.session.GpuPlacement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * GPU allocations: the candidates for a model and mode with what is allocated on them, writing a
 * placement's rows, and releasing a session's. The allocations table's trigger refuses any write
 * beyond a card's capacity, whoever makes it.
 */
@Repository
public class AllocationRepository {

  private final JdbcClient jdbc;

  AllocationRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** Ready, schedulable, healthy GPUs of the model and mode on connected clusters that serve session URLs. */
  public List<GpuCandidate> candidates(String gpuModel, String mode, Duration staleAfter) {
    return jdbc.sql("""
        select g.uuid, g.device_index, n.id as node_id, n.hostname, n.cluster_id, n.pool_id, n.lossless_pause,
               g.memory_mib, g.cores_percent, g.split_count,
               count(a.id) as used_count, count(a.id) filter (where a.gpumem_mib is null) as used_whole,
               coalesce(sum(a.gpumem_mib), 0) as used_mem, coalesce(sum(a.gpucores_percent), 0) as used_cores
          from gpu_devices g
          join nodes n on n.id = g.node_id
          join clusters c on c.id = n.cluster_id
          left join allocations a on a.gpu_uuid = g.uuid and a.released_at is null
         where g.model = :model and g.healthy and not g.cordoned
           and n.gpu_mode = :mode and n.removed_at is null and n.schedulable and n.liveness = 'ready'
           and n.drain_state is null
           and c.status = 'connected' and c.inventory_at > now() - make_interval(secs => :stale)
           -- a cluster without a session domain cannot serve a session URL
           and c.session_domain is not null
         group by g.uuid, g.device_index, n.id, n.hostname, n.cluster_id, n.pool_id, n.lossless_pause, g.memory_mib, g.cores_percent,
                  g.split_count
         order by n.cluster_id, n.hostname, g.device_index
        """)
        .param("model", gpuModel).param("mode", mode).param("stale", staleAfter.toSeconds())
        .query((rs, n) -> new GpuCandidate(rs.getString("uuid"), rs.getInt("device_index"), rs.getString("node_id"),
            rs.getString("hostname"), rs.getString("cluster_id"), rs.getString("pool_id"), rs.getBoolean("lossless_pause"),
            rs.getLong("memory_mib"),
            rs.getInt("cores_percent"), rs.getInt("split_count"), rs.getInt("used_count"), rs.getInt("used_whole"),
            rs.getLong("used_mem"), rs.getInt("used_cores")))
        .list();
  }

  /** Serializes placements of one GPU model until the transaction ends; other models do not wait. */
  public void lockModel(String gpuModel) {
    AdvisoryLocks.placement(jdbc, gpuModel);
  }

  /** One row per GPU of the placement. */
  public void insert(String sessionId, GpuPlacement placement) {
    for (String uuid : placement.gpuUuids()) {
      jdbc.sql("""
          insert into allocations (id, session_id, node_id, gpu_uuid, gpumem_mib, gpucores_percent)
          values (:id, :s, :n, :g, :mem, :cores)
          """)
          .param("id", NewIds.next("alc")).param("s", sessionId).param("n", placement.nodeId())
          .param("g", uuid).param("mem", placement.gpumemMib()).param("cores", placement.gpucoresPercent())
          .update();
    }
  }

  /** Releases a session's GPUs; idempotent. Returns how many were held. */
  public int release(String sessionId) {
    return jdbc.sql("update allocations set released_at = now() where session_id = :s and released_at is null")
        .param("s", sessionId).update();
  }

  /**
   * Where a session's volume may be mounted: the clusters its storage pool names (scope {@code selected}; null: any
   * cluster), less those whose worker reported the pool's StorageClass missing.
   */
  public record VolumeClusters(Set<String> only, Set<String> notReady) {

    public boolean allows(String clusterId) {
      return (only == null || only.contains(clusterId)) && !notReady.contains(clusterId);
    }
  }

  /**
   * The clusters that may mount the session's volume, in one query; null when any cluster may (no volume, or a
   * volume in no pool).
   */
  public VolumeClusters clustersMountingVolumeOf(String sessionId) {
    return jdbc.sql("""
        select p.scope,
               array(select pc.cluster_id::text from storage_pool_clusters pc where pc.pool_id = p.id) as selected,
               array(select st.cluster_id::text from storage_pool_cluster_status st
                      where st.pool_id = p.id and not st.storage_class_present) as not_ready
          from sessions s join volumes v on v.id = s.volume_id join storage_pools p on p.id = v.storage_pool_id
         where s.id = :s
        """).param("s", sessionId)
        .query((rs, n) -> new VolumeClusters(
            "selected".equals(rs.getString("scope")) ? Set.copyOf(List.of((String[]) rs.getArray("selected").getArray())) : null,
            Set.copyOf(List.of((String[]) rs.getArray("not_ready").getArray()))))
        .optional().orElse(null);
  }
}
