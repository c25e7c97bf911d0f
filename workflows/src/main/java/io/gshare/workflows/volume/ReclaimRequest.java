package io.gshare.workflows.volume;

/**
 * What the API starts a volume's reclaim with ({@link VolumeReclaimWorkflow}): workflow type
 * {@value #WORKFLOW_TYPE}, id {@code volume-reclaim-<volumeId>} ({@code WorkflowIds.volumeReclaim}), task queue
 * {@code gshare-control}, search attribute {@code GshareVolumeId}. A restore within the grace sends the signal
 * {@value #RESTORE_SIGNAL} (no argument) to that workflow id.
 *
 * <p>The volume's row is the truth: the API marks it {@code deleting} (with {@code reclaim_after}) before it
 * starts the workflow, and back to live before it signals a restore. When the grace is over, the workflow moves
 * it from {@code deleting} to {@code deleted} in one statement before it touches a claim (a restored volume is
 * left alone), and from then on a restore is refused.
 *
 * @param graceSeconds how long to wait before reclaiming (the volume's {@code reclaim_after} is now + this)
 */
public record ReclaimRequest(String volumeId, long graceSeconds) {

  /** The workflow type the API starts (untyped). */
  public static final String WORKFLOW_TYPE = VolumeReclaimWorkflow.TYPE;

  /** The signal a restore sends. */
  public static final String RESTORE_SIGNAL = VolumeReclaimWorkflow.RESTORE;
}
