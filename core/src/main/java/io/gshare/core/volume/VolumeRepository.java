package io.gshare.core.volume;

import io.gshare.core.support.NewIds;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Users' volumes, their claims on clusters, and what they count against quotas. */
@Repository
public class VolumeRepository {

  /**
   * A volume as the API shows it.
   *
   * @param sizeGb GiB, what its claims request
   * @param requestedSizeGb an approved expansion the volume sync has not applied yet
   * @param usedBytes from the last volume sync
   * @param reclaimAfter while {@code deleting}: when the reclaim workflow removes its claims (a restore is possible until then)
   */
  public record Volume(String id, String ownerId, String name, String poolId, int sizeGb, Integer requestedSizeGb,
      VolumeStatus status, Long usedBytes, Instant createdAt, Instant deletedAt, Instant reclaimAfter,
      Instant reclaimedAt) {

    /** What the volume takes of quotas and of its pool: its size, or an approved expansion's larger one. */
    public int effectiveSizeGb() {
      return requestedSizeGb == null ? sizeGb : Math.max(sizeGb, requestedSizeGb);
    }

    public boolean is(VolumeStatus status) {
      return this.status == status;
    }
  }

  /**
   * What to list; null members do not filter.
   *
   * @param clusterId volumes with a claim on that cluster
   */
  public record Filter(String ownerId, String poolId, String clusterId) {}

  /** Statuses that count against quotas: every volume not deleted. */
  static final String QUOTA_COUNTED = "v.status not in ('deleting', 'deleted', 'reclaimed')";

  private final JdbcClient jdbc;
  private final DefaultVolumeStorageClass defaultClass;

  public VolumeRepository(JdbcClient jdbc, DefaultVolumeStorageClass defaultClass) {
    this.jdbc = jdbc;
    this.defaultClass = defaultClass;
  }

  /** Newest first; {@code ownerId} null lists everyone's. Volumes not reclaimed (deleting ones too: they can be restored). */
  public List<Volume> list(String ownerId) {
    return list(new Filter(ownerId, null, null));
  }

  /** Newest first, volumes not reclaimed (deleting ones too: they can be restored). */
  public List<Volume> list(Filter filter) {
    StringBuilder sql = new StringBuilder("select v.* from volumes v where v.status not in ('deleted', 'reclaimed')");
    Map<String, Object> params = new LinkedHashMap<>();
    if (filter.ownerId() != null) {
      sql.append(" and v.owner_id = :owner");
      params.put("owner", filter.ownerId());
    }
    if (filter.poolId() != null) {
      sql.append(" and v.storage_pool_id = :pool");
      params.put("pool", filter.poolId());
    }
    if (filter.clusterId() != null) {
      sql.append(" and exists (select 1 from volume_claims c where c.volume_id = v.id and c.cluster_id = :cluster)");
      params.put("cluster", filter.clusterId());
    }
    sql.append(" order by v.created_at desc, v.id");
    return jdbc.sql(sql.toString()).params(params).query(VolumeRepository::map).list();
  }

  /** A live volume (not deleted): what a session may mount. */
  public Optional<Volume> findById(String id) {
    return jdbc.sql("select * from volumes where id = :id and deleted_at is null").param("id", id)
        .query(VolumeRepository::map).optional();
  }

  /** Any volume, deleted and reclaimed ones too (their rows stay as history). */
  public Optional<Volume> find(String id) {
    return jdbc.sql("select * from volumes where id = :id").param("id", id).query(VolumeRepository::map).optional();
  }

  /**
   * Locks the volume's row until the transaction ends (a delete, restore or expansion of it waits), and
   * answers it as it is once locked.
   */
  public Optional<Volume> lock(String id) {
    return jdbc.sql("select * from volumes where id = :id for update").param("id", id)
        .query(VolumeRepository::map).optional();
  }

  /**
   * Whether the volume is live, read under a share lock held to the end of the transaction: a session
   * created with it and a delete of it wait for each other, so a deleted volume is never mounted and a
   * mounted one never deleted.
   */
  public boolean lockLive(String id) {
    return jdbc.sql("select id from volumes where id = :id and deleted_at is null for share").param("id", id)
        .query(String.class).optional().isPresent();
  }

  /** Whether the owner has a live volume of that name (other than {@code exceptId}). */
  public boolean nameTaken(String ownerId, String name, String exceptId) {
    return jdbc.sql("""
        select count(*) from volumes where owner_id = :o and name = :n and deleted_at is null and id <> :except
        """).param("o", ownerId).param("n", name).param("except", exceptId == null ? "" : exceptId).query(Integer.class).single() > 0;
  }

  public void insert(String id, String ownerId, String name, String poolId, int sizeGb) {
    jdbc.sql("""
        insert into volumes (id, owner_id, name, storage_pool_id, size_gb, status)
        values (:id, :o, :n, :p, :size, 'available')
        """).param("id", id).param("o", ownerId).param("n", name).param("p", poolId).param("size", sizeGb).update();
  }

  /** Marks it deleted; its claims stay until the reclaim workflow removes them after the grace. */
  public void markDeleting(String id, Duration grace) {
    jdbc.sql("""
        update volumes set status = 'deleting', deleted_at = now(), reclaim_after = now() + make_interval(secs => :grace)
         where id = :id
        """).param("id", id).param("grace", (double) grace.toSeconds()).update();
  }

  /** Back to live with {@code status}, as if never deleted. */
  public void undelete(String id, VolumeStatus status) {
    jdbc.sql("update volumes set status = :s, deleted_at = null, reclaim_after = null where id = :id")
        .param("id", id).param("s", status.wireName()).update();
  }

  /** Records an approved expansion: the volume sync grows its claims to the size. */
  public void approveExpansion(String id, int sizeGb) {
    jdbc.sql("update volumes set requested_size_gb = :size, status = 'expanding' where id = :id")
        .param("id", id).param("size", sizeGb).update();
  }

  /** GiB and count of the user's volumes that count against quotas (not deleted). */
  public VolumeRules.Usage usageOfUser(String userId) {
    return jdbc.sql("select coalesce(sum(greatest(v.size_gb, coalesce(v.requested_size_gb, 0))), 0), count(*)"
            + " from volumes v where v.owner_id = :u and " + QUOTA_COUNTED)
        .param("u", userId).query((rs, n) -> new VolumeRules.Usage(rs.getLong(1), rs.getLong(2))).single();
  }

  /** GiB and count of the volumes the team's users hold that count against quotas (not deleted). */
  public VolumeRules.Usage usageOfTeam(String teamId) {
    return jdbc.sql("select coalesce(sum(greatest(v.size_gb, coalesce(v.requested_size_gb, 0))), 0), count(*)"
            + " from volumes v join users u on u.id = v.owner_id where u.team_id = :t and " + QUOTA_COUNTED)
        .param("t", teamId).query((rs, n) -> new VolumeRules.Usage(rs.getLong(1), rs.getLong(2))).single();
  }

  /** A cluster's claim of the volume, as its worker last reported it. */
  public record Claim(String clusterId, String clusterName, String pvcName, String phase, Long requestedBytes,
      Long capacityBytes, Long usedBytes, Instant syncedAt) {}

  public List<Claim> claimsOf(String volumeId) {
    return jdbc.sql("""
        select c.cluster_id, k.name as cluster_name, c.pvc_name, c.phase, c.requested_bytes, c.capacity_bytes, c.used_bytes,
               c.synced_at
          from volume_claims c left join clusters k on k.id = c.cluster_id
         where c.volume_id = :v order by c.created_at, c.cluster_id
        """).param("v", volumeId)
        .query((rs, n) -> new Claim(rs.getString("cluster_id"), rs.getString("cluster_name"), rs.getString("pvc_name"),
            rs.getString("phase"), (Long) rs.getObject("requested_bytes"), (Long) rs.getObject("capacity_bytes"),
            (Long) rs.getObject("used_bytes"), instant(rs.getTimestamp("synced_at"))))
        .list();
  }

  /** A session that mounted the volume. */
  public record VolumeSession(String id, String name, String state, String clusterId, Instant createdAt, Instant endedAt) {}

  /** The sessions that mounted the volume, newest first (at most {@code limit}). */
  public List<VolumeSession> sessionsOf(String volumeId, int limit) {
    return jdbc.sql("""
        select id, name, state, cluster_id, created_at, ended_at from sessions where volume_id = :v
         order by created_at desc, id limit :limit
        """).param("v", volumeId).param("limit", limit)
        .query((rs, n) -> new VolumeSession(rs.getString("id"), rs.getString("name"), rs.getString("state"),
            rs.getString("cluster_id"), instant(rs.getTimestamp("created_at")), instant(rs.getTimestamp("ended_at"))))
        .list();
  }

  /** A new id for a volume. */
  public static String newId() {
    return NewIds.next("vol");
  }

  /** How a session mounts the volume: its size and its pool's StorageClass (null: the cluster's default). */
  public record Mount(int sizeGb, String storageClass) {}

  /**
   * The volume as a session on {@code clusterId} mounts it: its size, and its pool's StorageClass, or for a
   * volume without a pool the class set for that cluster when it was attached
   * ({@code hack/attach-cluster.sh --storage-values}: {@code storage_settings.volume_storage_class}), else the
   * control plane's default ({@link DefaultVolumeStorageClass}); null leaves the claim to the cluster's default class.
   */
  public Mount mountOf(String volumeId, String clusterId) {
    return jdbc.sql("""
        select v.size_gb, coalesce(p.storage_class, c.storage_settings ->> 'volume_storage_class', :default_class)
          from volumes v left join storage_pools p on p.id = v.storage_pool_id
          left join clusters c on c.id = :c
         where v.id = :v
        """).param("v", volumeId).param("c", clusterId).param("default_class", defaultClass.name())
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

  private static Volume map(ResultSet rs, int row) throws SQLException {
    return new Volume(rs.getString("id"), rs.getString("owner_id"), rs.getString("name"), rs.getString("storage_pool_id"),
        rs.getInt("size_gb"), (Integer) rs.getObject("requested_size_gb"),
        VolumeStatus.fromWire(rs.getString("status")),
        (Long) rs.getObject("used_bytes"), instant(rs.getTimestamp("created_at")), instant(rs.getTimestamp("deleted_at")),
        instant(rs.getTimestamp("reclaim_after")), instant(rs.getTimestamp("reclaimed_at")));
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }
}
