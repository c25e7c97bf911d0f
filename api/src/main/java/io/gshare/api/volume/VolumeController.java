package io.gshare.api.volume;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.ratelimit.RateLimit;
import io.gshare.api.ratelimit.RateLimited;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.volume.VolumeExpansionRepository;
import io.gshare.core.volume.VolumeExpansionRepository.Expansion;
import io.gshare.core.volume.VolumeRepository;
import io.gshare.core.volume.VolumeRepository.Claim;
import io.gshare.core.volume.VolumeRepository.Volume;
import io.gshare.core.volume.VolumeRepository.VolumeSession;
import io.gshare.core.volume.VolumeStatus;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Instant;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Users' volumes: owned by a user, not by a cluster (each cluster that mounts one makes its own claim),
 * counted against the policy's volume quotas and their storage pool's capacity.
 */
@RestController
@Tag(name = "volumes")
class VolumeController {

  private static final int SESSIONS_SHOWN = 50;

  private final VolumeService service;
  private final VolumeRepository volumes;
  private final VolumeExpansionRepository expansions;
  private final Access access;

  VolumeController(VolumeService service, VolumeRepository volumes, VolumeExpansionRepository expansions, Access access) {
    this.service = service;
    this.volumes = volumes;
    this.expansions = expansions;
    this.access = access;
  }

  /** Checked by the domain, so a bad one is 422 with nothing written. */
  record NewVolume(String name, Integer sizeGb, String poolId) {}

  record ExpansionInput(Integer sizeGb) {}

  record VolumeList(List<Volume> items) {}

  /**
   * A volume with its claims (one per cluster that mounted it, as its worker last reported), the sessions that
   * mounted it (newest first, at most 50) and its open expansion request.
   */
  record VolumeDetail(String id, String ownerId, String name, String poolId, int sizeGb, Integer requestedSizeGb,
      VolumeStatus status, Long usedBytes, Instant createdAt, Instant deletedAt, Instant reclaimAfter, Instant reclaimedAt,
      List<Claim> claims, List<VolumeSession> sessions, Expansion expansion) {}

  @PostMapping("/api/v1/volumes")
  @RateLimited(RateLimit.USER_COMMANDS)
  @ResponseStatus(HttpStatus.CREATED)
  @Operation(summary = "Create a volume of yours in a storage pool (pool_id optional: the default pool, else the only one);"
      + " 409 quota_exceeded / insufficient_storage / conflict (name taken)")
  @ProblemResponses({ProblemCode.CONFLICT, ProblemCode.INSUFFICIENT_STORAGE, ProblemCode.QUOTA_EXCEEDED})
  VolumeDetail create(Caller.User caller, @RequestBody NewVolume body) {
    return detail(service.create(caller, body.name(), body.sizeGb(), body.poolId()));
  }

  @GetMapping("/api/v1/volumes")
  @Operation(summary = "Your volumes not reclaimed, newest first (admins: everyone's, filter by user_id);"
      + " filters pool_id and cluster_id (a claim there)")
  @ProblemResponses({ProblemCode.FORBIDDEN})
  VolumeList list(Caller.User caller,
      @RequestParam(name = "user_id", required = false) String userId,
      @RequestParam(name = "pool_id", required = false) String poolId,
      @RequestParam(name = "cluster_id", required = false) String clusterId) {
    if (userId != null && !userId.equals(caller.userId()) && !caller.isAdmin()) {
      access.requireAdmin(caller, "volume", null);
    }
    String owner = caller.isAdmin() ? userId : caller.userId();
    return new VolumeList(volumes.list(new VolumeRepository.Filter(owner, poolId, clusterId)));
  }

  @GetMapping("/api/v1/volumes/{id}")
  @Operation(summary = "One volume (yours, or any for admins): size, status, used bytes, claims per cluster, sessions,"
      + " the open expansion request")
  VolumeDetail get(Caller.User caller, @PathVariable String id) {
    return detail(service.visible(caller, id));
  }

  @DeleteMapping("/api/v1/volumes/{id}")
  @RateLimited(RateLimit.USER_COMMANDS)
  @ResponseStatus(HttpStatus.ACCEPTED)
  @Operation(summary = "Delete a volume (owner or admin): deleting, restorable until reclaim_after, then reclaimed by its"
      + " workflow; 409 volume_in_use while a session not ended holds it")
  @ProblemResponses({ProblemCode.CONFLICT, ProblemCode.TEMPORAL_UNAVAILABLE, ProblemCode.VOLUME_IN_USE})
  VolumeDetail delete(Caller.User caller, @PathVariable String id) {
    return detail(service.delete(caller, id));
  }

  @PostMapping("/api/v1/volumes/{id}/restore")
  @RateLimited(RateLimit.USER_COMMANDS)
  @Operation(summary = "Restore a deleting volume before reclaim_after (owner or admin); 409 once reclaimed or when not"
      + " deleting")
  @ProblemResponses({ProblemCode.CONFLICT, ProblemCode.QUOTA_EXCEEDED, ProblemCode.TEMPORAL_UNAVAILABLE})
  VolumeDetail restore(Caller.User caller, @PathVariable String id) {
    return detail(service.restore(caller, id));
  }

  @PostMapping("/api/v1/volumes/{id}/expansion")
  @RateLimited(RateLimit.USER_COMMANDS)
  @ResponseStatus(HttpStatus.CREATED)
  @Operation(summary = "Ask for a larger size (owner or admin), for an admin to approve; checked against quotas and the"
      + " pool's capacity; one open request per volume")
  @ProblemResponses({ProblemCode.CONFLICT, ProblemCode.INSUFFICIENT_STORAGE, ProblemCode.QUOTA_EXCEEDED})
  Expansion requestExpansion(Caller.User caller, @PathVariable String id, @RequestBody ExpansionInput body) {
    return service.requestExpansion(caller, id, body.sizeGb());
  }

  private VolumeDetail detail(Volume v) {
    return new VolumeDetail(v.id(), v.ownerId(), v.name(), v.poolId(), v.sizeGb(), v.requestedSizeGb(), v.status(),
        v.usedBytes(), v.createdAt(), v.deletedAt(), v.reclaimAfter(), v.reclaimedAt(), volumes.claimsOf(v.id()),
        volumes.sessionsOf(v.id(), SESSIONS_SHOWN), expansions.openOf(v.id()).orElse(null));
  }
}
