package io.gshare.workflows.node;

import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.session.SessionDrainOrder;
import io.gshare.workflows.session.SessionDrainOutcome;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/** The control plane's side of a node drain: its Postgres state and the sessions on it. Runs on gshare-control. */
@ActivityInterface
public interface NodeDrainActivities {

  /** Marks the node draining, so placement skips it from now on (not only after the next inventory report). */
  @ActivityMethod(name = "MarkNodeDraining")
  void markDraining(String nodeId, String reason);

  /** The sessions still on the node: unended with the node as theirs, or holding one of its GPUs. */
  @ActivityMethod(name = "SessionsOnNode")
  List<String> sessionsOn(String nodeId);

  /**
   * Sends the drain order to the session's own workflow (an update, never a write to its row) and waits
   * for what it did, heartbeating. The update id is derived from the drain's run, so a retry does not
   * send a second order; and a session no longer on the node ignores one anyway.
   */
  @ActivityMethod(name = "DrainSession")
  SessionDrainOutcome drainSession(String sessionId, SessionDrainOrder order);

  /** Marks the node drained (its pods evicted, its sessions settled). */
  @ActivityMethod(name = "MarkNodeDrained")
  void markDrained(String nodeId);

  /** Clears the drain mark (uncordon): placement may choose the node again once it is schedulable. */
  @ActivityMethod(name = "ClearNodeDrain")
  void clearDrain(String nodeId);

  /** The GPUs of the node an admin has cordoned, for HAMi's annotation. */
  @ActivityMethod(name = "CordonedDevices")
  List<String> cordonedDevices(String nodeId);

  /** Stores where the operation ended, for after its execution is gone. */
  @ActivityMethod(name = "RecordNodeOperation")
  void recordOperation(OperationProgress progress);
}
