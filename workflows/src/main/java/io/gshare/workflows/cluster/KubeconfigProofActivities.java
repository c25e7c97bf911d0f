package io.gshare.workflows.cluster;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The control plane's side of a kubeconfig proof: opens the sealed kubeconfig and asks its apiserver who it is. */
@ActivityInterface
public interface KubeconfigProofActivities {

  /** Never throws for a kubeconfig that reaches nothing or another cluster: that is the answer, in words. */
  @ActivityMethod
  KubeconfigProof proveSameCluster(KubeconfigProofRequest request);
}
