package io.gshare.api.volume;

import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.gshare.core.error.GshareException;
import io.gshare.core.volume.VolumeExpansionRepository.Expansion;
import io.gshare.core.volume.VolumeRepository;
import io.gshare.core.volume.VolumeRepository.Volume;
import io.gshare.core.volume.Volumes;
import java.time.Duration;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The volume API's writes: the domain ({@link Volumes}) decides and records, the reclaim workflow is
 * started and signalled through {@link VolumeReclaimStarter}. The volume's row is the truth, and the order
 * favours keeping data: a delete commits before its reclaim starts (and is undone when it cannot start),
 * a restore commits only once its reclaim has been told.
 */
@Service
public class VolumeService {

  private final Volumes volumes;
  private final VolumeRepository repository;
  private final VolumeReclaimStarter reclaims;
  private final Access access;
  private final TransactionTemplate transactions;
  private final Duration grace;

  VolumeService(Volumes volumes, VolumeRepository repository, VolumeReclaimStarter reclaims, Access access,
      TransactionTemplate transactions, VolumeProperties properties) {
    this.volumes = volumes;
    this.repository = repository;
    this.reclaims = reclaims;
    this.access = access;
    this.transactions = transactions;
    this.grace = properties.reclaimGrace();
  }

  public Volume create(Caller.User caller, String name, Integer sizeGb, String poolId) {
    return volumes.create(caller.userId(), name, sizeGb, poolId);
  }

  /** Any volume of the caller's (admins: anyone's), deleted ones too; another user's is 404. */
  public Volume visible(Caller.User caller, String volumeId) {
    Volume volume = repository.find(volumeId).orElseThrow(() -> GshareException.notFound("volume", volumeId));
    access.requireOwnerOrAdmin(caller, "volume", volumeId, volume.ownerId());
    return volume;
  }

  /** Marks it deleting and starts its reclaim after the grace; a second delete answers the same. */
  public Volume delete(Caller.User caller, String volumeId) {
    visible(caller, volumeId);
    Volumes.Deleted deleted = volumes.delete(caller.actor(), volumeId, grace);
    if (deleted.changed()) {
      try {
        reclaims.start(volumeId, grace);
      } catch (RuntimeException e) {
        // A deleting volume nothing will reclaim would hold its storage for ever: both or neither.
        volumes.undoDelete(volumeId, deleted.previous());
        throw e;
      }
    }
    return deleted.volume();
  }

  /**
   * Restores a deleting volume within the grace. The reclaim is signalled inside the transaction: if it cannot
   * be told, the volume stays deleting (a restore the reclaim never heard of would lose the data it keeps).
   */
  public Volume restore(Caller.User caller, String volumeId) {
    visible(caller, volumeId);
    return transactions.execute(tx -> {
      Volume restored = volumes.restore(caller.actor(), volumeId);
      reclaims.restore(volumeId);
      return restored;
    });
  }

  public Expansion requestExpansion(Caller.User caller, String volumeId, Integer sizeGb) {
    visible(caller, volumeId);
    return volumes.requestExpansion(caller.userId(), volumeId, sizeGb);
  }
}
