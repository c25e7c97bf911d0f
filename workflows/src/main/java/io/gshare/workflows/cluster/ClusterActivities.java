package io.gshare.workflows.cluster;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * Work done inside one cluster by its cluster-worker, on {@code gshare-cluster-<clusterId>}.
 * Implementations talk to the in-cluster apiserver; every method is idempotent.
 */
@ActivityInterface
public interface ClusterActivities {

  /** Reads the cluster as the control plane needs to see it: version, nodes, GPUs, runtime add-ons. */
  @ActivityMethod(name = "DescribeCluster")
  ClusterDescription describeCluster();
}
