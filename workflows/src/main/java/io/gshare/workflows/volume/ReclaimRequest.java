package io.gshare.workflows.volume;

/**
 * What the API starts a volume's reclaim with: workflow type {@value #WORKFLOW_TYPE}, id
 * {@code volume-reclaim-<volumeId>} ({@code WorkflowIds.volumeReclaim}), task queue {@code gshare-control},
 * search attribute {@code GshareVolumeId}. A restore within the grace sends the signal {@value #RESTORE_SIGNAL}
 * (no argument) to that workflow id.
 *
 * <p>The volume's row is the truth: the API marks it {@code deleting} (with {@code reclaim_after}) before it
 * starts the workflow, and back to live before it signals a restore. A reclaim must therefore check, in the
 * transaction that marks it reclaimed or before it removes a claim, that the volume is still {@code deleting}.
 *
 * @param graceSeconds how long to wait before reclaiming (the volume's {@code reclaim_after} is now + this)
 */
public record ReclaimRequest(String volumeId, long graceSeconds) {

  /** The workflow type the API starts (untyped); the workflow's {@code @WorkflowMethod(name = ...)}. */
  public static final String WORKFLOW_TYPE = "VolumeReclaim";

  /** The signal a restore sends; the workflow's {@code @SignalMethod(name = ...)}. */
  public static final String RESTORE_SIGNAL = "restore";
}
