package io.gshare.core.volume;

import io.gshare.core.audit.AuditLog;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.policy.Policy;
import io.gshare.core.policy.PolicyRepository;
import io.gshare.core.session.SessionRepository;
import io.gshare.core.support.AdvisoryLocks;
import io.gshare.core.user.UserRepository;
import io.gshare.core.volume.StoragePoolRepository.StoragePool;
import io.gshare.core.volume.VolumeExpansionRepository.Expansion;
import io.gshare.core.volume.VolumeRepository.Volume;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A volume's life in Postgres, each step one transaction: create (quota and the pool's capacity), delete
 * (into {@code deleting} for the grace period) and restore, and expansion (requested by the owner,
 * approved or rejected by an admin). Quota and capacity are counted under per-team, per-user and
 * per-pool advisory locks, so racing requests count each other and never overshoot; a volume's own row
 * lock is taken before those. The reclaim workflow is the caller's to start and signal.
 */
@Service
public class Volumes {

  private final VolumeRepository volumes;
  private final StoragePoolRepository pools;
  private final VolumeExpansionRepository expansions;
  private final PolicyRepository policies;
  private final UserRepository users;
  private final SessionRepository sessions;
  private final AuditLog audit;
  private final JdbcClient jdbc;

  Volumes(VolumeRepository volumes, StoragePoolRepository pools, VolumeExpansionRepository expansions,
      PolicyRepository policies, UserRepository users, SessionRepository sessions, AuditLog audit, JdbcClient jdbc) {
    this.volumes = volumes;
    this.pools = pools;
    this.expansions = expansions;
    this.policies = policies;
    this.users = users;
    this.sessions = sessions;
    this.audit = audit;
    this.jdbc = jdbc;
  }

  /**
   * A new volume of the owner's in {@code poolId} (null: the default pool, else the only pool): 422 for bad
   * input, 409 {@code conflict} for a live volume of that name, {@code quota_exceeded}, {@code insufficient_storage}.
   */
  @Transactional
  public Volume create(String ownerId, String name, Integer sizeGb, String poolId) {
    VolumeRules.requireName(name);
    VolumeRules.requireSize(sizeGb);
    String pool = poolId != null ? poolId : pools.implicitPoolId().orElseThrow(() -> VolumeRules.invalid("pool_id",
        pools.count() == 0 ? "names no storage pool: an admin must register one first"
            : "is required: there are several storage pools and none is the default"));
    String teamId = teamOf(ownerId);
    lockQuotas(teamId, ownerId);
    AdvisoryLocks.storagePool(jdbc, pool);
    StoragePool storage = pools.findById(pool).orElseThrow(() ->
        VolumeRules.invalid("pool_id", "names no storage pool: " + pool));
    if (volumes.nameTaken(ownerId, name, null)) {
      throw nameConflict(name);
    }
    checkQuota(ownerId, teamId, sizeGb, 1);
    VolumeRules.checkCapacity(storage.id(), storage.name(), storage.capacitySource(), storage.totalGb(), storage.allocatedGb(), sizeGb);
    String id = VolumeRepository.newId();
    try {
      volumes.insert(id, ownerId, name, pool, sizeGb);
    } catch (DuplicateKeyException raced) {
      throw nameConflict(name);
    }
    return volumes.find(id).orElseThrow();
  }

  /**
   * The outcome of a delete.
   *
   * @param previous the status it had (to undo the delete when the reclaim workflow cannot start)
   * @param changed false when it was already deleting (nothing changed, nothing to start)
   */
  public record Deleted(Volume volume, VolumeStatus previous, boolean changed) {}

  /**
   * Marks the volume {@code deleting}, restorable until now + grace: 404, 409 {@code volume_in_use} while an
   * unfinished session holds it (one not terminated or failed: a paused session keeps it for its resume),
   * 409 {@code conflict} once reclaimed. Deleting a deleting volume changes nothing.
   */
  @Transactional
  public Deleted delete(String actor, String volumeId, Duration grace) {
    // The row lock waits for a session create holding the volume (and makes a later one wait, then find it deleted).
    Volume volume = volumes.lock(volumeId).orElseThrow(() -> GshareException.notFound("volume", volumeId));
    if (volume.is(VolumeStatus.DELETING)) {
      return new Deleted(volume, VolumeStatus.DELETING, false);
    }
    if (volume.deletedAt() != null) {
      throw new GshareException(ProblemCode.CONFLICT, "volume " + volumeId + " is already " + volume.status().wireName());
    }
    sessions.unendedSessionOn(volumeId).ifPresent(user -> {
      throw new GshareException(ProblemCode.VOLUME_IN_USE, "volume " + volumeId + " is used by session " + user[0]
          + " (" + user[1] + "); end that session before deleting the volume", Map.of("session_id", user[0]));
    });
    VolumeStatus previous = volume.status();
    volumes.markDeleting(volumeId, grace);
    Volume deleted = volumes.find(volumeId).orElseThrow();
    audit.changed(actor, "volume.deleted", "volume", volumeId, null, Map.of("owner_id", volume.ownerId(),
        "reclaim_after", String.valueOf(deleted.reclaimAfter())));
    return new Deleted(deleted, previous, true);
  }

  /** Undoes a delete whose reclaim workflow could not be started: the volume is as it was. */
  @Transactional
  public void undoDelete(String volumeId, VolumeStatus previous) {
    volumes.lock(volumeId).filter(v -> v.is(VolumeStatus.DELETING)).ifPresent(v -> volumes.undelete(volumeId, previous));
  }

  /**
   * Brings a {@code deleting} volume back before its reclaim: 404, 409 {@code conflict} when it is not being
   * deleted, its grace has ended or a live volume of the owner's took its name, {@code quota_exceeded} when it
   * no longer fits the owner's quota. It returns to {@code expanding} with an approved expansion pending, else
   * {@code available}.
   */
  @Transactional
  public Volume restore(String actor, String volumeId) {
    Volume volume = volumes.lock(volumeId).orElseThrow(() -> GshareException.notFound("volume", volumeId));
    if (!volume.is(VolumeStatus.DELETING)) {
      throw new GshareException(ProblemCode.CONFLICT, "volume " + volumeId + " is " + volume.status().wireName()
          + (volume.is(VolumeStatus.RECLAIMED) ? ": its data is gone" : ", not being deleted"));
    }
    if (volume.reclaimAfter() != null && !volume.reclaimAfter().isAfter(now())) {
      throw new GshareException(ProblemCode.CONFLICT, "volume " + volumeId + "'s grace period ended at "
          + volume.reclaimAfter() + "; it is being reclaimed");
    }
    if (volumes.nameTaken(volume.ownerId(), volume.name(), volumeId)) {
      throw new GshareException(ProblemCode.CONFLICT, "the owner has another volume named " + volume.name()
          + " now; delete it first to restore this one");
    }
    String teamId = teamOf(volume.ownerId());
    lockQuotas(teamId, volume.ownerId());
    // Its pool still counts it (a deleting volume holds its storage until reclaimed): only quotas are checked.
    checkQuota(volume.ownerId(), teamId, volume.effectiveSizeGb(), 1);
    volumes.undelete(volumeId, volume.requestedSizeGb() != null ? VolumeStatus.EXPANDING : VolumeStatus.AVAILABLE);
    audit.changed(actor, "volume.restored", "volume", volumeId, null, Map.of("owner_id", volume.ownerId()));
    return volumes.find(volumeId).orElseThrow();
  }

  /**
   * The owner asks for a larger size: 404, 422 (not larger, out of range), 409 {@code conflict} (deleted, or a
   * request already open), {@code quota_exceeded}, {@code insufficient_storage}, counted as a create of the difference.
   */
  @Transactional
  public Expansion requestExpansion(String requestedBy, String volumeId, Integer sizeGb) {
    VolumeRules.requireSize(sizeGb);
    Volume volume = volumes.lock(volumeId).orElseThrow(() -> GshareException.notFound("volume", volumeId));
    requireLive(volume);
    if (sizeGb <= volume.sizeGb()) {
      throw VolumeRules.invalid("size_gb", "must be larger than the volume's size, " + volume.sizeGb() + " GiB"
          + " (volumes do not shrink)");
    }
    expansions.openOf(volumeId).ifPresent(open -> {
      throw new GshareException(ProblemCode.CONFLICT, "volume " + volumeId + " has an expansion to " + open.sizeGb()
          + " GiB " + open.status() + " already (" + open.id() + ")", Map.of("expansion_id", open.id()));
    });
    checkGrowth(volume, sizeGb);
    try {
      return expansions.findById(expansions.insert(volumeId, requestedBy, sizeGb)).orElseThrow();
    } catch (DuplicateKeyException raced) {
      throw new GshareException(ProblemCode.CONFLICT, "volume " + volumeId + " has an expansion open already");
    }
  }

  /**
   * An admin approves: the volume becomes {@code expanding} with {@code requested_size_gb}, for the volume sync to
   * apply. Quota and the pool's capacity are checked again (they may have changed since the request): 404,
   * 409 {@code conflict} (not requested any more, volume deleted), {@code quota_exceeded}, {@code insufficient_storage}.
   */
  @Transactional
  public Expansion approve(String actor, String expansionId) {
    String volumeId = expansions.volumeOf(expansionId).orElseThrow(() -> GshareException.notFound("volume expansion", expansionId));
    Volume volume = volumes.lock(volumeId).orElseThrow(() -> GshareException.notFound("volume", volumeId));
    Expansion expansion = requireRequested(expansionId);
    requireLive(volume);
    if (expansion.sizeGb() <= volume.sizeGb()) {
      throw new GshareException(ProblemCode.CONFLICT, "volume " + volumeId + " is " + volume.sizeGb()
          + " GiB already; reject this request");
    }
    checkGrowth(volume, expansion.sizeGb());
    expansions.decide(expansionId, ExpansionStatus.APPROVED, userOf(actor), null);
    volumes.approveExpansion(volumeId, expansion.sizeGb());
    audit.changed(actor, "volume.expansion_approved", "volume", volumeId, null,
        Map.of("expansion_id", expansionId, "size_gb", Integer.toString(expansion.sizeGb())));
    return expansions.findById(expansionId).orElseThrow();
  }

  /** An admin rejects, saying why: 404, 409 {@code conflict} when it is not requested any more. */
  @Transactional
  public Expansion reject(String actor, String expansionId, String reason) {
    requireRequested(expansionId);
    expansions.decide(expansionId, ExpansionStatus.REJECTED, userOf(actor), reason);
    Expansion rejected = expansions.findById(expansionId).orElseThrow();
    audit.changed(actor, "volume.expansion_rejected", "volume", rejected.volumeId(), reason,
        Map.of("expansion_id", expansionId, "size_gb", Integer.toString(rejected.sizeGb())));
    return rejected;
  }

  private Expansion requireRequested(String expansionId) {
    Expansion expansion = expansions.lock(expansionId)
        .orElseThrow(() -> GshareException.notFound("volume expansion", expansionId));
    if (!expansion.is(ExpansionStatus.REQUESTED)) {
      throw new GshareException(ProblemCode.CONFLICT, "expansion " + expansionId + " is " + expansion.status()
          + " already");
    }
    return expansion;
  }

  /** Growing the volume to {@code sizeGb} fits the owner's quotas and the pool's free capacity. */
  private void checkGrowth(Volume volume, int sizeGb) {
    long more = sizeGb - (long) volume.effectiveSizeGb();
    String teamId = teamOf(volume.ownerId());
    lockQuotas(teamId, volume.ownerId());
    checkQuota(volume.ownerId(), teamId, more, 0);
    if (volume.poolId() != null) {
      AdvisoryLocks.storagePool(jdbc, volume.poolId());
      StoragePool pool = pools.findById(volume.poolId()).orElseThrow();
      VolumeRules.checkCapacity(pool.id(), pool.name(), pool.capacitySource(), pool.totalGb(), pool.allocatedGb(), more);
    }
  }

  private static void requireLive(Volume volume) {
    if (volume.deletedAt() != null) {
      throw new GshareException(ProblemCode.CONFLICT, "volume " + volume.id() + " is " + volume.status().wireName());
    }
  }

  private void lockQuotas(String teamId, String ownerId) {
    if (teamId != null) {
      AdvisoryLocks.volumesOfTeam(jdbc, teamId);
    }
    AdvisoryLocks.volumesOfUser(jdbc, ownerId);
  }

  private void checkQuota(String ownerId, String teamId, long addGb, long addCount) {
    Policy policy = policies.effective(teamId);
    VolumeRules.Limits limits = VolumeRules.Limits.of(policy);
    VolumeRules.Usage team = teamId != null && limits.teamLimited() ? volumes.usageOfTeam(teamId) : null;
    VolumeRules.checkQuota(limits, volumes.usageOfUser(ownerId), team, addGb, addCount);
  }

  private String teamOf(String userId) {
    return users.findById(userId).orElseThrow(() -> GshareException.notFound("user", userId)).teamId();
  }

  private Instant now() {
    return jdbc.sql("select now()").query(Timestamp.class).single().toInstant();
  }

  private static String userOf(String actor) {
    return actor != null && actor.startsWith("user:") ? actor.substring("user:".length()) : null;
  }

  private static GshareException nameConflict(String name) {
    return new GshareException(ProblemCode.CONFLICT, "you have a volume named " + name + " already",
        Map.of("name", name));
  }
}
