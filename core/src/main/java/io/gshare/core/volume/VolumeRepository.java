package io.gshare.core.volume;

import io.gshare.contract.internal.VolumeSync.VolumeState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Users' volumes (not deleted). */
@Repository
public class VolumeRepository {

  public record Volume(String id, String ownerId, String name, String storagePoolId, int sizeGb, Integer requestedSizeGb,
      String status, Long usedBytes, Instant createdAt) {}

  private final JdbcClient jdbc;

  VolumeRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** Newest first; {@code ownerId} null lists everyone's. */
  public List<Volume> list(String ownerId) {
    String sql = "select * from volumes where deleted_at is null" + (ownerId == null ? "" : " and owner_id = :owner")
        + " order by created_at desc";
    JdbcClient.StatementSpec spec = jdbc.sql(sql);
    if (ownerId != null) {
      spec = spec.param("owner", ownerId);
    }
    return spec.query(VolumeRepository::map).list();
  }

  public Optional<Volume> findById(String id) {
    return jdbc.sql("select * from volumes where id = :id and deleted_at is null").param("id", id)
        .query(VolumeRepository::map).optional();
  }

  /** How a session mounts the volume: its size and its pool's StorageClass (null: the cluster's default). */
  public record Mount(int sizeGb, String storageClass) {}

  public Mount mountOf(String volumeId) {
    return jdbc.sql("""
        select v.size_gb, p.storage_class from volumes v left join storage_pools p on p.id = v.storage_pool_id
         where v.id = :v
        """).param("v", volumeId)
        .query((rs, n) -> new Mount(rs.getInt(1), rs.getString(2)))
        .single();
  }

  /** Records the claim a cluster will make for the volume, before it makes it, so every claim can be found later. */
  public void recordClaim(String volumeId, String clusterId, String pvcName) {
    jdbc.sql("""
        insert into volume_claims (volume_id, cluster_id, pvc_name) values (:v, :c, :pvc)
        on conflict (volume_id, cluster_id) do nothing
        """).param("v", volumeId).param("c", clusterId).param("pvc", pvcName).update();
  }

  /**
   * The volumes among {@code ids} in the cluster's scope: the cluster holds a claim for the volume or runs a
   * session using it.
   */
  public Set<String> inScopeOf(String clusterId, Set<String> ids) {
    return new HashSet<>(jdbc.sql("""
        select v.id from volumes v
         where v.id = any(:ids)
           and (exists (select 1 from volume_claims c where c.volume_id = v.id and c.cluster_id = :cluster)
                or exists (select 1 from sessions s where s.volume_id = v.id and s.cluster_id = :cluster))
        """)
        .param("ids", ids.toArray(String[]::new)).param("cluster", clusterId)
        .query(String.class).list());
  }

  /**
   * Applies what the cluster reports of its claim of the volume, and the volume's usage when known; returns
   * the claim rows written.
   */
  public int applySync(String clusterId, VolumeState v) {
    int written = jdbc.sql("""
        insert into volume_claims (volume_id, cluster_id, pvc_name, phase, capacity_bytes, synced_at)
        values (:v, :c, :pvc, :phase, :cap, now())
        on conflict (volume_id, cluster_id) do update set pvc_name = excluded.pvc_name, phase = excluded.phase,
            capacity_bytes = excluded.capacity_bytes, synced_at = excluded.synced_at
        """)
        .param("v", v.volumeId()).param("c", clusterId).param("pvc", v.pvcName()).param("phase", v.phase())
        .param("cap", v.capacityBytes())
        .update();
    if (v.usedBytes() != null) {
      jdbc.sql("update volumes set used_bytes = :used where id = :v").param("used", v.usedBytes())
          .param("v", v.volumeId()).update();
    }
    return written;
  }

  private static Volume map(ResultSet rs, int row) throws SQLException {
    Timestamp created = rs.getTimestamp("created_at");
    return new Volume(rs.getString("id"), rs.getString("owner_id"), rs.getString("name"), rs.getString("storage_pool_id"),
        rs.getInt("size_gb"), (Integer) rs.getObject("requested_size_gb"), rs.getString("status"),
        (Long) rs.getObject("used_bytes"), created == null ? null : created.toInstant());
  }
}
