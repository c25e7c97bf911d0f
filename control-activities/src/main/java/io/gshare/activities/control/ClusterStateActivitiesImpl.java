package io.gshare.activities.control;

import io.gshare.core.cluster.ClusterLifecycleRepository;
import io.gshare.core.operation.OperationRepository;
import io.gshare.workflows.cluster.ClusterStateActivities;
import io.gshare.workflows.cluster.ClusterStatus;
import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.TaskQueues;
import java.time.Instant;
import java.util.List;

/** Cluster rows in Postgres, for the attach and detach workflows, through the domain's repositories. */
@ActivitiesOn(taskQueue = TaskQueues.CONTROL)
public class ClusterStateActivitiesImpl implements ClusterStateActivities {

  private final ClusterLifecycleRepository clusters;
  private final OperationRepository operations;

  public ClusterStateActivitiesImpl(ClusterLifecycleRepository clusters, OperationRepository operations) {
    this.clusters = clusters;
    this.operations = operations;
  }

  @Override
  public boolean inventorySeen(String clusterId, long sinceEpochMillis) {
    return clusters.inventorySeen(clusterId, Instant.ofEpochMilli(sinceEpochMillis));
  }

  @Override
  public void markStatus(String clusterId, ClusterStatus status, String reason) {
    clusters.markStatus(clusterId, status, reason);
  }

  @Override
  public List<String> busyReasons(String clusterId) {
    return clusters.busyReasons(clusterId);
  }

  @Override
  public void deleteInventory(String clusterId) {
    clusters.deleteInventory(clusterId);
  }

  @Override
  public void recordOperation(OperationProgress progress) {
    operations.record(progress);
  }
}
