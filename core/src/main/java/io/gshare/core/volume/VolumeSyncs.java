package io.gshare.core.volume;

import io.gshare.contract.internal.VolumeSync;
import io.gshare.contract.internal.VolumeSync.StorageClassState;
import io.gshare.contract.internal.VolumeSync.VolumeState;
import io.gshare.contract.internal.VolumeSyncAnswer;
import io.gshare.contract.internal.VolumeSyncAnswer.ClaimResize;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Applies one cluster's volume sync (the caller checked that every volume named is in the cluster's
 * scope, in the same transaction): its claims' state and usage, the StorageClasses the pools name, then
 * answers what the worker must apply — approved expansions not reached yet, claims of reclaimed volumes.
 */
@Repository
public class VolumeSyncs {

  private static final Logger log = LoggerFactory.getLogger(VolumeSyncs.class);

  static final long GIB = 1024L * 1024 * 1024;

  private final JdbcClient jdbc;

  VolumeSyncs(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public VolumeSyncAnswer apply(String clusterId, VolumeSync sync) {
    for (VolumeState v : sync.volumes()) {
      jdbc.sql("""
          insert into volume_claims (volume_id, cluster_id, pvc_name, phase, capacity_bytes, requested_bytes, used_bytes, synced_at)
          select :v, :c, :pvc, :phase, :cap, :req, :used, now() from volumes where id = :v and status <> 'reclaimed'
          on conflict (volume_id, cluster_id) do update set pvc_name = excluded.pvc_name, phase = excluded.phase,
              capacity_bytes = excluded.capacity_bytes, requested_bytes = excluded.requested_bytes,
              used_bytes = coalesce(excluded.used_bytes, volume_claims.used_bytes), synced_at = excluded.synced_at
          """)
          .param("v", v.volumeId()).param("c", clusterId).param("pvc", v.pvcName()).param("phase", v.phase())
          .param("cap", v.capacityBytes()).param("req", v.requestedBytes()).param("used", v.usedBytes())
          .update();
      if (v.usedBytes() != null) {
        // The last figure of a mounted claim; an unmounted one reports none and the figure stays.
        jdbc.sql("update volumes set used_bytes = :used where id = :v").param("used", v.usedBytes()).param("v", v.volumeId())
            .update();
      }
    }
    markMissing(clusterId, sync.volumes());
    if (sync.storageClasses() != null) {
      recordPools(clusterId, sync.storageClasses(), sync.storageNodeDiskBytes());
    }
    List<ClaimResize> resize = expansions(clusterId);
    List<String> delete = jdbc.sql("""
        select distinct r.pvc from unnest(cast(:pvcs as text[]), cast(:vols as text[])) as r(pvc, vol)
          join volumes v on v.id = r.vol where v.status = 'reclaimed' order by 1
        """)
        .param("pvcs", sync.volumes().stream().map(VolumeState::pvcName).toArray(String[]::new))
        .param("vols", sync.volumes().stream().map(VolumeState::volumeId).toArray(String[]::new))
        .query(String.class).list();
    return new VolumeSyncAnswer(resize, delete);
  }

  /**
   * A claim this cluster reported before (synced) and no longer lists was deleted outside gShare: the sync is
   * complete, so its row says {@link VolumeState#MISSING} instead of claiming an object that is gone. A row
   * recorded for a claim not yet made (never synced) is left alone; a session there claims the volume again.
   */
  private void markMissing(String clusterId, List<VolumeState> reported) {
    int marked = jdbc.sql("""
        update volume_claims set phase = :missing, used_bytes = null, synced_at = now()
         where cluster_id = :c and synced_at is not null and phase is distinct from :missing
           and not (pvc_name = any(cast(:pvcs as text[])))
        """)
        .param("missing", VolumeState.MISSING).param("c", clusterId)
        .param("pvcs", reported.stream().map(VolumeState::pvcName).toArray(String[]::new))
        .update();
    if (marked > 0) {
      log.warn("cluster {}: {} volume claim(s) it reported before are gone (deleted outside gShare)", clusterId, marked);
    }
  }

  /**
   * For every pool the cluster may mount (scope all, selected with it, or its source cluster): whether its
   * StorageClass exists here, whether it allows expansion, and the capacity sources as seen from here.
   */
  private void recordPools(String clusterId, List<StorageClassState> classes, Long nodeDiskBytes) {
    Map<String, StorageClassState> byName = classes.stream()
        .collect(Collectors.toMap(StorageClassState::name, Function.identity(), (a, b) -> a));
    List<Map.Entry<String, String>> pools = jdbc.sql("""
        select p.id, p.storage_class from storage_pools p
         where p.scope = 'all' or p.cluster_id = :c
            or exists (select 1 from storage_pool_clusters pc where pc.pool_id = p.id and pc.cluster_id = :c)
        """).param("c", clusterId)
        .query((rs, n) -> Map.entry(rs.getString("id"), rs.getString("storage_class"))).list();
    for (Map.Entry<String, String> pool : pools) {
      StorageClassState sc = byName.get(pool.getValue());
      jdbc.sql("""
          insert into storage_pool_cluster_status (pool_id, cluster_id, storage_class_present, allows_expansion,
                                                   csi_capacity_bytes, node_disk_bytes, reported_at)
          values (:p, :c, :present, :expand, :csi, :disk, now())
          on conflict (pool_id, cluster_id) do update set storage_class_present = excluded.storage_class_present,
              allows_expansion = excluded.allows_expansion, csi_capacity_bytes = excluded.csi_capacity_bytes,
              node_disk_bytes = excluded.node_disk_bytes, reported_at = excluded.reported_at
          """)
          .param("p", pool.getKey()).param("c", clusterId).param("present", sc != null)
          .param("expand", sc == null ? null : sc.allowsExpansion())
          .param("csi", sc == null ? null : sc.csiCapacityBytes()).param("disk", nodeDiskBytes)
          .update();
    }
  }

  /**
   * Approved expansions: an expansion reached by every claim of its volume is applied (the volume takes
   * the size); a claim here below it is answered with a resize, unless its StorageClass cannot expand,
   * which the expansion then says.
   */
  private List<ClaimResize> expansions(String clusterId) {
    jdbc.sql("""
        with reached as (
          select e.id, e.volume_id, e.size_gb from volume_expansions e
           where e.status = 'approved'
             and exists (select 1 from volume_claims c where c.volume_id = e.volume_id)
             and not exists (select 1 from volume_claims c where c.volume_id = e.volume_id
                              and coalesce(c.capacity_bytes, 0) < e.size_gb * :gib)),
        applied as (
          update volume_expansions e set status = 'applied', applied_at = now(), reason = null
            from reached r where e.id = r.id returning e.volume_id, e.size_gb)
        update volumes v set size_gb = a.size_gb, requested_size_gb = null,
               status = case when v.status = 'expanding' then 'available' else v.status end
          from applied a where v.id = a.volume_id
        """).param("gib", GIB).update();
    record Pending(String expansionId, String pvcName, int sizeGb, Boolean allowsExpansion, String storageClass) {}
    List<Pending> pending = jdbc.sql("""
        select e.id, c.pvc_name, e.size_gb, s.allows_expansion, p.storage_class
          from volume_expansions e
          join volume_claims c on c.volume_id = e.volume_id and c.cluster_id = :c
          join volumes v on v.id = e.volume_id
          left join storage_pool_cluster_status s on s.pool_id = v.storage_pool_id and s.cluster_id = :c
          left join storage_pools p on p.id = v.storage_pool_id
         where e.status = 'approved' and coalesce(c.requested_bytes, 0) < e.size_gb * :gib
        """).param("c", clusterId).param("gib", GIB)
        .query((rs, n) -> new Pending(rs.getString("id"), rs.getString("pvc_name"), rs.getInt("size_gb"),
            (Boolean) rs.getObject("allows_expansion"), rs.getString("storage_class")))
        .list();
    List<ClaimResize> resize = new ArrayList<>();
    for (Pending p : pending) {
      if (Boolean.FALSE.equals(p.allowsExpansion())) {
        jdbc.sql("update volume_expansions set reason = :r where id = :id")
            .param("r", "the StorageClass " + p.storageClass() + " on cluster " + clusterId
                + " does not allow expansion (allowVolumeExpansion: false): the claim there keeps its size")
            .param("id", p.expansionId()).update();
      } else {
        resize.add(new ClaimResize(p.pvcName(), p.sizeGb()));
      }
    }
    return resize;
  }
}
