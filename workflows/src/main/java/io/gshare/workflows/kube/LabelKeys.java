package io.gshare.workflows.kube;

import java.util.Map;

/**
 * Every label key gShare reads or writes in a cluster, and the values it compares them with, defined once.
 *
 * <p>This package lives in {@code workflows} because every module that talks to a cluster already
 * depends on it (core, activities, cluster-worker, api) and it holds no framework, so the Kubernetes
 * vocabulary creates no new edge among them. The simulator depends on no other gShare module; it takes
 * this package alone (without the Temporal SDK), which is why {@code ModuleEdgesTest} keeps the
 * package to the JDK. {@code internal-contract} was the other candidate, but the names of
 * {@link KubeNames} are needed by workflow code, which may not depend on it.
 */
public final class LabelKeys {

  // Kubernetes' recommended labels, on the objects gShare makes and on the add-ons it looks for.
  public static final String NAME = "app.kubernetes.io/name";
  public static final String COMPONENT = "app.kubernetes.io/component";
  public static final String PART_OF = "app.kubernetes.io/part-of";
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  /** The value of {@link #MANAGED_BY} and {@link #PART_OF} on gShare's objects. */
  public static final String GSHARE = "gshare";

  /** gShare's own keys start with it; the worker reports every node label under it. */
  public static final String PREFIX = "gshare.io/";

  // On gShare's objects: what they belong to.
  public static final String SESSION_ID = "gshare.io/session-id";
  public static final String USER_ID = "gshare.io/user-id";
  public static final String VOLUME_ID = "gshare.io/volume-id";
  public static final String CLUSTER_ID = "gshare.io/cluster-id";
  /** On a checkpoint builder pod: the session it images (it carries no {@link #SESSION_ID}). */
  public static final String CHECKPOINT_OF = "gshare.io/checkpoint-of";

  // On nodes: set by the cluster's bootstrap (hack/cluster-bootstrap.sh) or the simulator, read by gShare.
  /** HAMi's: a node with {@code gpu=on} runs its device plugin. */
  public static final String GPU = "gpu";
  public static final String GPU_ON = "on";
  /** exclusive, fractional, cpu or storage. */
  public static final String GPU_MODE = "gshare.io/gpu-mode";
  /** With {@link #CUDA_CHECKPOINT}, both {@link #READY}: the node can pause a session losslessly. */
  public static final String CRIU = "gshare.io/criu";
  public static final String CUDA_CHECKPOINT = "gshare.io/cuda-checkpoint";
  public static final String READY = "ready";
  /** {@code gshare.io/role=storage} (also a NoSchedule taint): the registry and the CSI plugin run there. */
  public static final String ROLE = "gshare.io/role";
  public static final String ROLE_STORAGE = "storage";
  /** {@code true} on everything the simulator made, so nobody takes it for real hardware. */
  public static final String SIMULATED = "gshare.io/simulated";
  public static final String TRUE = "true";
  public static final String HOSTNAME = "kubernetes.io/hostname";
  public static final String NODE_ROLE_PREFIX = "node-role.kubernetes.io/";

  // The add-ons describeCluster looks for, as their charts label them.
  public static final Map<String, String> HAMI_DEVICE_PLUGIN = Map.of(COMPONENT, "hami-device-plugin");
  public static final Map<String, String> INGRESS_NGINX_CONTROLLER =
      Map.of(NAME, "ingress-nginx", COMPONENT, "controller");

  private LabelKeys() {}

  /** Whether a node's (or object's) labels mark it as simulated; null labels are none. */
  public static boolean simulated(Map<String, String> labels) {
    return labels != null && TRUE.equals(labels.get(SIMULATED));
  }

  /** Whether a node's labels say it can checkpoint a GPU container (CRIU and cuda-checkpoint ready). */
  public static boolean checkpointReady(Map<String, String> labels) {
    return labels != null && READY.equals(labels.get(CRIU)) && READY.equals(labels.get(CUDA_CHECKPOINT));
  }
}
