package io.gshare.workflows.common;

/**
 * The only place task-queue names are spelled. A mistyped queue is a queue nobody polls, so every
 * module builds names through here.
 */
public final class TaskQueues {

  /** Every workflow, and the activities that touch Postgres or sign tokens. */
  public static final String CONTROL = "gshare-control";

  private static final String CLUSTER_PREFIX = "gshare-cluster-";

  private TaskQueues() {}

  /** The queue that only the cluster-worker running inside {@code clusterId} polls. */
  public static String cluster(String clusterId) {
    Ids.requireValid(clusterId, "clusterId");
    return CLUSTER_PREFIX + clusterId;
  }

  /** The cluster id a cluster queue belongs to, or null when {@code taskQueue} is not a cluster queue. */
  public static String clusterIdOf(String taskQueue) {
    return taskQueue != null && taskQueue.startsWith(CLUSTER_PREFIX)
        ? taskQueue.substring(CLUSTER_PREFIX.length())
        : null;
  }
}
