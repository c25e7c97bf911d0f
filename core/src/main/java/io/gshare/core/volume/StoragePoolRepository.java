package io.gshare.core.volume;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Storage pools with their capacity (from the pool's capacity source) and allocation (the sizes of its
 * volumes not reclaimed), and how ready each cluster in their scope is (the volume sync's report of the
 * pool's StorageClass there). Pools are never summed: a volume lives in one pool, and each pool's free
 * capacity is its own.
 */
@Repository
public class StoragePoolRepository {

  /**
   * A pool as the API shows it.
   *
   * @param clusterId the source cluster, where the storage server lives (its reports give csi and node_disk capacity)
   * @param clusterIds with scope {@code selected}: the clusters that may mount it
   * @param totalGb null while its capacity source has not been reported
   * @param allocatedGb the sizes of its volumes not reclaimed (an approved expansion counts at its new size)
   * @param clusters the clusters in its scope and whether each is ready to mount it
   */
  public record StoragePool(String id, String name, String clusterId, String storageClass, PoolScope scope,
      List<String> clusterIds, CapacitySource capacitySource, Integer manualCapacityGb, boolean isDefault, Long totalGb,
      long allocatedGb, Long freeGb, List<ClusterReadiness> clusters, Instant createdAt) {}

  /**
   * One cluster in a pool's scope.
   *
   * @param status {@code ready} (its worker reported the pool's StorageClass), {@code not_ready} (reported it
   *     missing: placement never puts a session with one of the pool's volumes there) or {@code unknown} (no
   *     report yet)
   */
  public record ClusterReadiness(String clusterId, String clusterName, String status, Boolean allowsExpansion,
      Instant reportedAt) {}

  /** What a pool is made of, as written. */
  public record Row(String name, String clusterId, String storageClass, PoolScope scope, CapacitySource capacitySource,
      Integer manualCapacityGb, boolean isDefault) {}

  private static final String SELECT = """
      select p.*,
             (select coalesce(sum(greatest(v.size_gb, coalesce(v.requested_size_gb, 0))), 0) from volumes v
               where v.storage_pool_id = p.id and v.status <> 'reclaimed') as allocated_gb,
             st.csi_capacity_bytes, st.node_disk_bytes,
             array(select pc.cluster_id::text from storage_pool_clusters pc where pc.pool_id = p.id order by pc.cluster_id)
               as cluster_ids
        from storage_pools p
        left join storage_pool_cluster_status st on st.pool_id = p.id and st.cluster_id = p.cluster_id
      """;

  private final JdbcClient jdbc;

  StoragePoolRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** Every pool by name, with its capacity and the readiness of the clusters in its scope. */
  public List<StoragePool> list() {
    Map<String, List<ClusterReadiness>> readiness = readiness(null);
    return jdbc.sql(SELECT + " order by p.name").query((rs, n) -> map(rs, readiness)).list();
  }

  public Optional<StoragePool> findById(String id) {
    Map<String, List<ClusterReadiness>> readiness = readiness(id);
    return jdbc.sql(SELECT + " where p.id = :id").param("id", id).query((rs, n) -> map(rs, readiness)).optional();
  }

  /** The pool a volume goes to when none is named: the default one, else the only one; empty otherwise. */
  public Optional<String> implicitPoolId() {
    Optional<String> marked = jdbc.sql("select id from storage_pools where is_default").query(String.class).optional();
    if (marked.isPresent()) {
      return marked;
    }
    List<String> all = jdbc.sql("select id from storage_pools limit 2").query(String.class).list();
    return all.size() == 1 ? Optional.of(all.get(0)) : Optional.empty();
  }

  public int count() {
    return jdbc.sql("select count(*) from storage_pools").query(Integer.class).single();
  }

  public boolean nameTaken(String name, String exceptId) {
    return jdbc.sql("select count(*) from storage_pools where name = :n and id <> :except").param("n", name)
        .param("except", exceptId == null ? "" : exceptId).query(Integer.class).single() > 0;
  }

  /** Of {@code ids}, those that are no registered cluster or a detached one. */
  public List<String> unusableClusters(List<String> ids) {
    List<String> usable = jdbc.sql("select id from clusters where id = any(:ids) and status <> 'detached'")
        .param("ids", ids.toArray(String[]::new)).query(String.class).list();
    return ids.stream().filter(id -> !usable.contains(id)).distinct().toList();
  }

  public void insert(String id, Row row) {
    jdbc.sql("""
        insert into storage_pools (id, name, cluster_id, storage_class, scope, capacity_source, manual_capacity_gb, is_default)
        values (:id, :name, :cluster, :class, :scope, :source, :manual, :default)
        """).param("id", id).params(params(row)).update();
  }

  public void update(String id, Row row) {
    jdbc.sql("""
        update storage_pools set name = :name, cluster_id = :cluster, storage_class = :class, scope = :scope,
               capacity_source = :source, manual_capacity_gb = :manual, is_default = :default
         where id = :id
        """).param("id", id).params(params(row)).update();
  }

  /** No pool is the default any more (before another one becomes it). */
  public void clearDefault(String exceptId) {
    jdbc.sql("update storage_pools set is_default = false where is_default and id <> :id").param("id", exceptId).update();
  }

  /** The clusters that may mount the pool (scope {@code selected}); empty for scope {@code all}. */
  public void setClusters(String id, List<String> clusterIds) {
    jdbc.sql("delete from storage_pool_clusters where pool_id = :p").param("p", id).update();
    if (!clusterIds.isEmpty()) {
      jdbc.sql("""
          insert into storage_pool_clusters (pool_id, cluster_id) select :p, c from unnest(:ids) as c on conflict do nothing
          """).param("p", id).param("ids", clusterIds.toArray(String[]::new)).update();
    }
  }

  /** Volumes in the pool not reclaimed yet (deleting ones too: their claims still hold storage). */
  public int volumesNotReclaimed(String id) {
    return jdbc.sql("select count(*) from volumes where storage_pool_id = :p and status <> 'reclaimed'").param("p", id)
        .query(Integer.class).single();
  }

  /** Reclaimed volumes keep their rows, without the pool. */
  public boolean delete(String id) {
    return jdbc.sql("delete from storage_pools where id = :id").param("id", id).update() > 0;
  }

  /** The clusters in each pool's scope (or one pool's), with what the volume sync reported of its StorageClass there. */
  private Map<String, List<ClusterReadiness>> readiness(String poolId) {
    Map<String, List<ClusterReadiness>> byPool = new LinkedHashMap<>();
    jdbc.sql("""
        select p.id as pool_id, c.id as cluster_id, c.name as cluster_name, st.storage_class_present, st.allows_expansion,
               st.reported_at
          from storage_pools p
          join clusters c on (p.scope = 'all' and c.status <> 'detached')
                          or (p.scope = 'selected'
                              and exists (select 1 from storage_pool_clusters pc where pc.pool_id = p.id and pc.cluster_id = c.id))
          left join storage_pool_cluster_status st on st.pool_id = p.id and st.cluster_id = c.id
         where p.id = :pool or :pool = ''
         order by p.id, c.name, c.id
        """).param("pool", poolId == null ? "" : poolId)
        .query((rs, n) -> {
          Object present = rs.getObject("storage_class_present");
          String status = present == null ? "unknown" : (Boolean) present ? "ready" : "not_ready";
          Timestamp reported = rs.getTimestamp("reported_at");
          return byPool.computeIfAbsent(rs.getString("pool_id"), p -> new ArrayList<>()).add(new ClusterReadiness(
              rs.getString("cluster_id"), rs.getString("cluster_name"), status, (Boolean) rs.getObject("allows_expansion"),
              reported == null ? null : reported.toInstant()));
        })
        .list();
    return byPool;
  }

  private static StoragePool map(ResultSet rs, Map<String, List<ClusterReadiness>> readiness) throws SQLException {
    CapacitySource source = CapacitySource.fromWire(rs.getString("capacity_source")).orElseThrow();
    Integer manual = (Integer) rs.getObject("manual_capacity_gb");
    Long total = VolumeRules.totalGb(source, manual, (Long) rs.getObject("csi_capacity_bytes"),
        (Long) rs.getObject("node_disk_bytes"));
    long allocated = rs.getLong("allocated_gb");
    Array clusterIds = rs.getArray("cluster_ids");
    Timestamp created = rs.getTimestamp("created_at");
    String id = rs.getString("id");
    return new StoragePool(id, rs.getString("name"), rs.getString("cluster_id"), rs.getString("storage_class"),
        PoolScope.fromWire(rs.getString("scope")).orElseThrow(),
        List.copyOf(Arrays.asList((String[]) clusterIds.getArray())), source, manual,
        rs.getBoolean("is_default"), total, allocated, VolumeRules.freeGb(total, allocated),
        List.copyOf(readiness.getOrDefault(id, List.of())), created == null ? null : created.toInstant());
  }

  private static Map<String, Object> params(Row row) {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("name", row.name());
    params.put("cluster", row.clusterId());
    params.put("class", row.storageClass());
    params.put("scope", row.scope().wireName());
    params.put("source", row.capacitySource().wireName());
    params.put("manual", row.manualCapacityGb());
    params.put("default", row.isDefault());
    return params;
  }
}
