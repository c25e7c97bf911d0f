package io.gshare.sim;

/**
 * Keys only the simulator uses. The keys gShare itself reads (gpu-mode, simulated, the checkpoint labels,
 * HAMi's register annotation, ...) come from {@link io.gshare.workflows.kube.LabelKeys} and
 * {@link io.gshare.workflows.kube.Annotations}, so the simulator writes what gShare reads.
 */
public final class SimLabels {

  /** HAMi's heartbeat on a node; gShare does not read it. */
  public static final String HAMI_HANDSHAKE = "hami.io/node-handshake";
  public static final String OS = "kubernetes.io/os";
  public static final String ARCH = "kubernetes.io/arch";

  /** Set on a pod to have the kubelet simulator fail it instead of running it (tests only). */
  public static final String FAIL_POD = "sim.gshare.io/fail";

  private SimLabels() {}
}
