package io.gshare.sim;

/** Label and annotation names the simulator writes, as HAMi and gShare's bootstrap write them. */
public final class SimLabels {

  /** Marks every object the simulator made, so nobody mistakes it for real hardware. */
  public static final String SIMULATED = "gshare.io/simulated";

  public static final String GPU_ON = "gpu";
  public static final String GPU_MODE = "gshare.io/gpu-mode";
  public static final String HAMI_REGISTER = "hami.io/node-nvidia-register";
  public static final String HAMI_HANDSHAKE = "hami.io/node-handshake";
  public static final String HOSTNAME = "kubernetes.io/hostname";

  /** Set on a pod to have the kubelet simulator fail it instead of running it (tests only). */
  public static final String FAIL_POD = "sim.gshare.io/fail";

  private SimLabels() {}
}
