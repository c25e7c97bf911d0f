package io.gshare.workflows.image;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Image pulls on the worker's own cluster. Runs on {@code gshare-cluster-<clusterId>}. */
@ActivityInterface
public interface ImagePullClusterActivities {

  /**
   * Pulls the image onto each node: a node whose {@code status.images} already lists the reference is
   * skipped; elsewhere one short pod per node, pinned by {@code spec.nodeName} with
   * {@code imagePullPolicy: IfNotPresent} and a no-op command, is run and deleted. Waits for every pod,
   * heartbeating; a node whose pull fails (ErrImagePull, ImagePullBackOff, no space) is reported failed
   * with the kubelet's words and does not stop the others. Idempotent: pod names derive from the image
   * and the node, so a retried attempt finds the pods of the last.
   */
  @ActivityMethod(name = "PullImageOnNodes")
  ImagePullResult pull(ImagePullRequest request);
}
