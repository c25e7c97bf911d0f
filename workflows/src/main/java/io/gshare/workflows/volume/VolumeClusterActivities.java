package io.gshare.workflows.volume;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** A volume's claim in one cluster, changed by that cluster's worker. Runs on {@code gshare-cluster-<clusterId>}. */
@ActivityInterface
public interface VolumeClusterActivities {

  /**
   * Deletes the claim and waits (heartbeating) until it is really gone; the PV goes by its StorageClass's
   * {@code Delete} reclaim policy. Fails (retryably, type {@code claim_still_present}) with what holds it —
   * a pod that still mounts it, a finalizer — when it has not gone within a minute. Idempotent: a claim
   * already gone is done.
   */
  @ActivityMethod(name = "DeleteVolumeClaim")
  void deleteClaim(String pvcName);
}
