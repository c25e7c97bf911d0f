package io.gshare.workflows.volume;

import io.gshare.workflows.common.OperationProgress;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Reclaims a deleted volume ({@code volume-reclaim-<volumeId>}): waits out the grace period on a durable
 * timer (a restore within it ends the reclaim, the volume and its claims untouched), then deletes the
 * volume's claim on every cluster that has one, waits until each is really gone, and marks the volume
 * reclaimed. A claim that will not go stops the reclaim visibly (failed step, admin alert) until an
 * admin retries.
 */
@WorkflowInterface
public interface VolumeReclaimWorkflow {

  String TYPE = "VolumeReclaim";
  String RESTORE = "restore";
  String RETRY = "retry";

  @WorkflowMethod(name = TYPE)
  OperationProgress reclaim(ReclaimRequest request);

  /** The owner restored the volume within the grace period. Ignored once claims are being deleted. */
  @SignalMethod(name = RESTORE)
  void restore();

  /** An admin asks a stopped reclaim to try the claims again. */
  @SignalMethod(name = RETRY)
  void retry();

  @QueryMethod(name = "progress")
  OperationProgress progress();
}
