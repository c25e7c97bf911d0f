package io.gshare.contract.internal;

/** The control plane's {@code /internal} endpoints a cluster-worker calls, each with an operator token. */
public final class InternalPaths {

  /** The base of every report endpoint. */
  public static final String BASE = "/internal/v1";

  /** {@link InventoryReport}: every node and GPU of the cluster, one batched call per tick. */
  public static final String INVENTORY = "/inventory";

  /** {@link StatusReport}: the pods behind the cluster's sessions. */
  public static final String SESSIONS_STATUS = "/sessions/status";

  /** {@link UsageReport}: GPU usage samples of the cluster's sessions. */
  public static final String USAGE = "/usage";

  /** {@link LiveUsage}: a node's usage agent's last second of samples, for the live chart only. */
  public static final String LIVE_USAGE = "/usage/live";

  /** {@link VolumeSync}: the claims and usage of the volumes the cluster mounts. */
  public static final String VOLUMES_SYNC = "/volumes/sync";

  private InternalPaths() {}
}
