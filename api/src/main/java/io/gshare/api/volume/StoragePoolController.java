package io.gshare.api.volume;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.volume.StoragePoolRepository;
import io.gshare.core.volume.StoragePoolRepository.StoragePool;
import io.gshare.core.volume.StoragePools;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Size;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Storage pools (the guide's "스토리지 풀 등록"): a StorageClass served by a storage server on a source
 * cluster, mountable by every cluster or the selected ones, with a capacity from CSI, the admin, or the
 * storage node's disk. Each pool's capacity is its own: pools are never summed.
 */
@RestController
@RequestMapping("/api/v1/storage/pools")
@Tag(name = "storage pools")
class StoragePoolController {

  private final StoragePools service;
  private final StoragePoolRepository pools;

  StoragePoolController(StoragePools service, StoragePoolRepository pools) {
    this.service = service;
    this.pools = pools;
  }

  /** A pool to create, or the members to change (PATCH: absent members stay). Checked by the domain: 422 names the field. */
  @Schema(name = "StoragePoolInput")
  record PoolInput(String name, String clusterId, String storageClass, String scope, @Size(max = 1000) List<String> clusterIds,
      String capacitySource, Integer manualCapacityGb, Boolean isDefault) {

    StoragePools.PoolInput toDomain() {
      return new StoragePools.PoolInput(name, clusterId, storageClass, scope, clusterIds, capacitySource, manualCapacityGb,
          isDefault);
    }
  }

  @Schema(name = "StoragePoolList")
  record PoolList(List<StoragePool> items) {}

  @GetMapping
  @Operation(summary = "Storage pools with capacity (total, allocated, free GiB) and each cluster's readiness (admins)")
  @AdminOnly
  PoolList list(Caller.User caller) {
    return new PoolList(pools.list());
  }

  @GetMapping("/{id}")
  @Operation(summary = "One storage pool (admins)")
  @AdminOnly
  StoragePool get(Caller.User caller, @PathVariable String id) {
    return pools.findById(id).orElseThrow(() -> GshareException.notFound("storage pool", id));
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  @Operation(summary = "Register a storage pool (admins): name, cluster_id, storage_class, scope all|selected (cluster_ids),"
      + " capacity_source csi|manual (manual_capacity_gb)|node_disk, is_default")
  @AdminOnly
  @ProblemResponses({ProblemCode.CONFLICT})
  StoragePool create(Caller.User caller, @Valid @RequestBody PoolInput in) {
    return service.create(caller.actor(), in.toDomain());
  }

  @PatchMapping("/{id}")
  @Operation(summary = "Change a storage pool (admins); its StorageClass only while it holds no volume")
  @AdminOnly
  @ProblemResponses({ProblemCode.CONFLICT})
  StoragePool update(Caller.User caller, @PathVariable String id, @Valid @RequestBody PoolInput in) {
    return service.update(caller.actor(), id, in.toDomain());
  }

  @DeleteMapping("/{id}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  @Operation(summary = "Delete a storage pool (admins); 409 while volumes not reclaimed live in it")
  @AdminOnly
  @ProblemResponses({ProblemCode.CONFLICT})
  void delete(Caller.User caller, @PathVariable String id) {
    service.delete(caller.actor(), id);
  }
}
