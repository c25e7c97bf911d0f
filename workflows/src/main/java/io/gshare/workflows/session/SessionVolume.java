package io.gshare.workflows.session;

import io.gshare.workflows.kube.KubeNames;

/**
 * A user's volume as a session mounts it. A volume belongs to its owner, not to a cluster: the worker
 * of the cluster a session runs on claims it there (one PVC per volume and cluster, named from the
 * volume id) and the pod mounts that claim. Pausing or ending the session keeps the claim and its data.
 *
 * @param storageClass the volume's storage pool's class; null: the cluster's default StorageClass
 */
public record SessionVolume(String volumeId, String claimName, String storageClass, int sizeGb, String mountPath) {

  /** Where a session finds its volume: the "work" directory of Jupyter's docker-stacks images. */
  public static final String MOUNT_PATH = "/home/jovyan/work";

  /** {@code vol_k2j8} → {@code gshare-vol-k2j8}: the same claim name on every cluster and every attempt. */
  public static String claimNameOf(String volumeId) {
    return KubeNames.of("gshare", volumeId);
  }
}
