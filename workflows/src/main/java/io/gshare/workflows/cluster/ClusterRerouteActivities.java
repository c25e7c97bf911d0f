package io.gshare.workflows.cluster;

import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.session.SessionReroute;
import io.gshare.workflows.session.SessionRerouteOutcome;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/** The control plane's side of moving a cluster's sessions to its new session domain ({@code gshare-control}). */
@ActivityInterface
public interface ClusterRerouteActivities {

  /** The sessions of the cluster that have not ended (running, paused, or on their way). */
  @ActivityMethod(name = "LiveSessionsOfCluster")
  List<String> liveSessions(String clusterId);

  /**
   * Sends the session's workflow the reroute update and waits (heartbeating) for what it did. A session whose
   * workflow has ended has nothing to move. The same change twice is harmless, so a retried attempt may resend it.
   */
  @ActivityMethod(name = "RerouteSession")
  SessionRerouteOutcome rerouteSession(String sessionId, SessionReroute change);

  @ActivityMethod(name = "RecordClusterRerouteOperation")
  void recordOperation(OperationProgress progress);
}
