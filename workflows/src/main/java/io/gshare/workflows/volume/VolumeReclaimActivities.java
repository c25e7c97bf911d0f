package io.gshare.workflows.volume;

import io.gshare.workflows.common.OperationProgress;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/** The control plane's side of a reclaim. Runs on gshare-control. */
@ActivityInterface
public interface VolumeReclaimActivities {

  /** The volume's claims, one per cluster that ever mounted it. */
  @ActivityMethod(name = "VolumeClaims")
  List<ClaimTarget> claimsOf(String volumeId);

  /**
   * Starts deleting: true when the volume is still {@code deleting} (not restored meanwhile), and then it
   * can no longer be restored. Idempotent.
   */
  @ActivityMethod(name = "BeginVolumeReclaim")
  boolean begin(String volumeId);

  /** The claims are gone: the volume is {@code reclaimed} (its row kept as history), its claim rows removed. */
  @ActivityMethod(name = "MarkVolumeReclaimed")
  void markReclaimed(String volumeId);

  /** Tells the admins (audit alert) that a reclaim stopped and why. */
  @ActivityMethod(name = "AlertVolumeReclaim")
  void alert(String volumeId, String reason);

  @ActivityMethod(name = "RecordVolumeOperation")
  void recordOperation(OperationProgress progress);
}
