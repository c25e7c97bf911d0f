package io.gshare.workflows.node;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/** A node as its cluster's worker changes it. Runs on {@code gshare-cluster-<clusterId>}. */
@ActivityInterface
public interface NodeClusterActivities {

  /** Sets or clears {@code spec.unschedulable}, the field {@code kubectl cordon} and {@code uncordon} set. Idempotent. */
  @ActivityMethod(name = "SetNodeUnschedulable")
  void setUnschedulable(String hostname, boolean unschedulable);

  /**
   * Evicts the node's pods through the Eviction API ({@code policy/v1}), so PodDisruptionBudgets are
   * honoured: a refusal (429) is tried again until the deadline. DaemonSet and mirror pods stay.
   * Heartbeats with what is left.
   */
  @ActivityMethod(name = "EvictNodePods")
  EvictionResult evictPods(EvictionRequest request);

  /**
   * Writes HAMi's per-GPU cordon annotation ({@code hami.io/device-cordon}, a comma list of UUIDs; HAMi
   * 2.10+ schedules nothing on them) to exactly {@code uuids}; removes it when empty. Idempotent.
   */
  @ActivityMethod(name = "SetDeviceCordon")
  void setDeviceCordon(String hostname, List<String> uuids);
}
