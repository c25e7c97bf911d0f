package io.gshare.workflows.node;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/** The node liveness sweep's one step, against Postgres. Runs on gshare-control. */
@ActivityInterface
public interface NodeLivenessActivities {

  /**
   * Marks the nodes of attached clusters not reported for {@code gshare.node.stale-after} as alerted and raises the
   * NodeOffline alert for each, in one transaction; returns their hostnames. Idempotent: a retry after a failure
   * finds the same nodes (nothing was marked), one after success finds none (each outage is alerted once).
   */
  @ActivityMethod(name = "AlertOfflineNodes")
  List<String> alertOfflineNodes();
}
