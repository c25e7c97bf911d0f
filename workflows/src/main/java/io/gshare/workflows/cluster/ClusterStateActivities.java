package io.gshare.workflows.cluster;

import io.gshare.workflows.common.OperationProgress;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/** Postgres state of clusters, for the attach and detach workflows. Runs on gshare-control. */
@ActivityInterface
public interface ClusterStateActivities {

  /** True once the cluster's worker has reported an inventory at or after {@code sinceEpochMillis}. */
  @ActivityMethod(name = "InventorySeen")
  boolean inventorySeen(String clusterId, long sinceEpochMillis);

  @ActivityMethod(name = "MarkClusterStatus")
  void markStatus(String clusterId, ClusterStatus status, String reason);

  /** What keeps the cluster from being detached (running sessions, live allocations); empty when nothing. */
  @ActivityMethod(name = "ClusterBusyReasons")
  List<String> busyReasons(String clusterId);

  /** Deletes the cluster's node and GPU device rows; sessions and allocations keep their history. */
  @ActivityMethod(name = "DeleteClusterInventory")
  void deleteInventory(String clusterId);

  /** Stores where an operation ended, for after its execution is gone. */
  @ActivityMethod(name = "RecordOperation")
  void recordOperation(OperationProgress progress);
}
