package io.gshare.activities.control;

import io.gshare.core.operation.OperationRepository;
import io.gshare.core.volume.VolumeReclaims;
import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.volume.ClaimTarget;
import io.gshare.workflows.volume.VolumeReclaimActivities;
import java.util.List;

/** A reclaim's Postgres side, through the domain's repository. */
@ActivitiesOn(taskQueue = TaskQueues.CONTROL)
public class VolumeReclaimActivitiesImpl implements VolumeReclaimActivities {

  private final VolumeReclaims reclaims;
  private final OperationRepository operations;

  public VolumeReclaimActivitiesImpl(VolumeReclaims reclaims, OperationRepository operations) {
    this.reclaims = reclaims;
    this.operations = operations;
  }

  @Override
  public List<ClaimTarget> claimsOf(String volumeId) {
    return reclaims.claimsOf(volumeId).stream()
        .map(c -> new ClaimTarget(c.clusterId(), c.pvcName(), c.clusterAttached())).toList();
  }

  @Override
  public boolean begin(String volumeId) {
    return reclaims.begin(volumeId);
  }

  @Override
  public void markReclaimed(String volumeId) {
    reclaims.markReclaimed(volumeId);
  }

  @Override
  public void alert(String volumeId, String reason) {
    reclaims.alert(volumeId, reason);
  }

  @Override
  public void recordOperation(OperationProgress progress) {
    operations.record(progress);
  }
}
