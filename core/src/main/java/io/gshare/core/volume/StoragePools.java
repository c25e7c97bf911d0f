package io.gshare.core.volume;

import io.gshare.core.audit.AuditLog;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.support.AdvisoryLocks;
import io.gshare.core.support.NewIds;
import io.gshare.core.volume.StoragePoolRepository.Row;
import io.gshare.core.volume.StoragePoolRepository.StoragePool;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Registers, changes and deletes storage pools (the guide's "스토리지 풀 등록"): the source cluster where
 * the storage server lives, the StorageClass the pool's claims use, the clusters that may mount it, and
 * where its capacity comes from. Every change is audited.
 */
@Service
public class StoragePools {

  /** A Kubernetes object name (DNS subdomain), as a StorageClass's name must be. */
  public static final Pattern STORAGE_CLASS = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  public static final int MAX_MANUAL_CAPACITY_GB = 1_000_000_000;

  /**
   * A pool as asked for: everything for a create (scope defaults to {@code all}, capacity_source to {@code csi}),
   * the members to change for an update (null: unchanged).
   */
  public record PoolInput(String name, String clusterId, String storageClass, String scope, List<String> clusterIds,
      String capacitySource, Integer manualCapacityGb, Boolean isDefault) {}

  /** A pool's row and its selected clusters (empty for scope all). */
  public record Resolved(Row row, List<String> clusterIds) {}

  private final StoragePoolRepository pools;
  private final AuditLog audit;
  private final JdbcClient jdbc;

  StoragePools(StoragePoolRepository pools, AuditLog audit, JdbcClient jdbc) {
    this.pools = pools;
    this.audit = audit;
    this.jdbc = jdbc;
  }

  /** 422 for a bad pool (nothing written), 409 {@code conflict} for a name or default taken. */
  @Transactional
  public StoragePool create(String actor, PoolInput in) {
    Resolved resolved = resolve(null, List.of(), in);
    requireClusters(in);
    String id = NewIds.next("stp");
    write(resolved, id, true);
    audit.changed(actor, "storage_pool.created", "storage_pool", id, null, describe(resolved));
    return pools.findById(id).orElseThrow();
  }

  /** 404, 422 (nothing written), 409 {@code conflict} for a name taken or a class change under live volumes. */
  @Transactional
  public StoragePool update(String actor, String id, PoolInput in) {
    AdvisoryLocks.storagePool(jdbc, id);
    StoragePool current = pools.findById(id).orElseThrow(() -> GshareException.notFound("storage pool", id));
    Resolved resolved = resolve(rowOf(current), current.clusterIds(), in);
    requireClusters(in);
    if (!resolved.row().storageClass().equals(current.storageClass()) && pools.volumesNotReclaimed(id) > 0) {
      throw new GshareException(ProblemCode.CONFLICT, "storage pool " + current.name() + " holds volumes whose claims use"
          + " StorageClass " + current.storageClass() + "; its class cannot change until they are reclaimed");
    }
    write(resolved, id, false);
    audit.changed(actor, "storage_pool.updated", "storage_pool", id, null, describe(resolved));
    return pools.findById(id).orElseThrow();
  }

  /** 404, or 409 {@code conflict} while volumes not reclaimed live in it. */
  @Transactional
  public void delete(String actor, String id) {
    // A volume create in the pool holds this lock while it counts and inserts: the count below sees it.
    AdvisoryLocks.storagePool(jdbc, id);
    StoragePool pool = pools.findById(id).orElseThrow(() -> GshareException.notFound("storage pool", id));
    int volumes = pools.volumesNotReclaimed(id);
    if (volumes > 0) {
      throw new GshareException(ProblemCode.CONFLICT, "storage pool " + pool.name() + " holds " + volumes
          + " volume(s) not reclaimed yet; delete them (and wait out their reclaim) first", Map.of("volumes", volumes));
    }
    pools.delete(id);
    audit.changed(actor, "storage_pool.deleted", "storage_pool", id, null, Map.of("name", pool.name()));
  }

  /**
   * The pool {@code in} makes of {@code current} (null for a create), or 422 naming the first bad field.
   * Pure: whether clusters exist is checked apart.
   */
  public static Resolved resolve(Row current, List<String> currentClusters, PoolInput in) {
    boolean create = current == null;
    String name = in.name() != null ? in.name().strip() : create ? null : current.name();
    if (name == null || name.isEmpty() || name.length() > 100) {
      throw VolumeRules.invalid("name", "must be 1 to 100 characters");
    }
    String clusterId = in.clusterId() != null ? in.clusterId() : create ? null : current.clusterId();
    if (clusterId == null || clusterId.isBlank()) {
      throw VolumeRules.invalid("cluster_id", "is required: the cluster where the storage server lives");
    }
    String storageClass = in.storageClass() != null ? in.storageClass() : create ? null : current.storageClass();
    if (storageClass == null || storageClass.length() > 253 || !STORAGE_CLASS.matcher(storageClass).matches()) {
      throw VolumeRules.invalid("storage_class", "must be a StorageClass name: lower-case letters, digits, '-' and '.',"
          + " at most 253 characters, starting and ending with a letter or digit");
    }
    PoolScope scope = in.scope() != null
        ? PoolScope.fromWire(in.scope()).orElseThrow(() -> VolumeRules.invalid("scope", "must be all or selected"))
        : create ? PoolScope.ALL : current.scope();
    List<String> clusterIds;
    if (scope == PoolScope.ALL) {
      if (in.clusterIds() != null && !in.clusterIds().isEmpty()) {
        throw VolumeRules.invalid("cluster_ids", "is only for scope selected: with scope all every cluster may mount the pool");
      }
      clusterIds = List.of();
    } else {
      clusterIds = in.clusterIds() != null ? List.copyOf(new LinkedHashSet<>(in.clusterIds()))
          : create || current.scope() != PoolScope.SELECTED ? List.of() : currentClusters;
      if (clusterIds.isEmpty()) {
        throw VolumeRules.invalid("cluster_ids", "must name at least one cluster for scope selected");
      }
    }
    CapacitySource source = in.capacitySource() != null
        ? CapacitySource.fromWire(in.capacitySource()).orElseThrow(() ->
            VolumeRules.invalid("capacity_source", "must be csi, manual or node_disk"))
        : create ? CapacitySource.CSI : current.capacitySource();
    Integer manual;
    if (source == CapacitySource.MANUAL) {
      manual = in.manualCapacityGb() != null ? in.manualCapacityGb() : create ? null : current.manualCapacityGb();
      if (manual == null) {
        throw VolumeRules.invalid("manual_capacity_gb", "is required with capacity_source manual");
      }
      if (manual < 1 || manual > MAX_MANUAL_CAPACITY_GB) {
        throw VolumeRules.invalid("manual_capacity_gb", "must be between 1 and " + MAX_MANUAL_CAPACITY_GB + " (GiB)");
      }
    } else {
      if (in.manualCapacityGb() != null) {
        throw VolumeRules.invalid("manual_capacity_gb", "is only for capacity_source manual (" + source.wireName()
            + " capacity is reported by the source cluster)");
      }
      manual = null;
    }
    boolean isDefault = in.isDefault() != null ? in.isDefault() : !create && current.isDefault();
    return new Resolved(new Row(name, clusterId, storageClass, scope, source, manual, isDefault), clusterIds);
  }

  private void requireClusters(PoolInput in) {
    if (in.clusterId() != null && !pools.unusableClusters(List.of(in.clusterId())).isEmpty()) {
      throw VolumeRules.invalid("cluster_id", "names no registered cluster, or a detached one: " + in.clusterId());
    }
    if (in.clusterIds() != null && !in.clusterIds().isEmpty()) {
      List<String> unusable = pools.unusableClusters(in.clusterIds());
      if (!unusable.isEmpty()) {
        throw VolumeRules.invalid("cluster_ids", "names no registered cluster, or a detached one: " + String.join(", ", unusable));
      }
    }
  }

  private void write(Resolved resolved, String id, boolean create) {
    if (pools.nameTaken(resolved.row().name(), id)) {
      throw new GshareException(ProblemCode.CONFLICT, "a storage pool named " + resolved.row().name() + " already exists");
    }
    try {
      if (resolved.row().isDefault()) {
        pools.clearDefault(id);
      }
      if (create) {
        pools.insert(id, resolved.row());
      } else {
        pools.update(id, resolved.row());
      }
    } catch (DuplicateKeyException raced) {
      throw new GshareException(ProblemCode.CONFLICT, "another change to storage pools (its name or the default) raced"
          + " this one; try again");
    }
    pools.setClusters(id, resolved.clusterIds());
  }

  private static Row rowOf(StoragePool pool) {
    return new Row(pool.name(), pool.clusterId(), pool.storageClass(), pool.scope(), pool.capacitySource(),
        pool.manualCapacityGb(), pool.isDefault());
  }

  private static Map<String, String> describe(Resolved resolved) {
    Row row = resolved.row();
    Map<String, String> details = new LinkedHashMap<>();
    details.put("name", row.name());
    details.put("cluster_id", row.clusterId());
    details.put("storage_class", row.storageClass());
    details.put("scope", row.scope().wireName());
    if (!resolved.clusterIds().isEmpty()) {
      details.put("cluster_ids", String.join(",", new ArrayList<>(resolved.clusterIds())));
    }
    details.put("capacity_source", row.capacitySource().wireName());
    if (row.manualCapacityGb() != null) {
      details.put("manual_capacity_gb", row.manualCapacityGb().toString());
    }
    details.put("is_default", Boolean.toString(row.isDefault()));
    return details;
  }
}
