package io.gshare.workflows.cluster;

/**
 * The environment variables a cluster-worker reads, defined once for the worker that reads them and the
 * deployers that set them (the Deployment in a cluster, the dev runtime's local process). Here because
 * both the worker and the deployers (activities) already depend on {@code workflows}.
 */
public enum WorkerEnv {
  /** Required: the cluster the worker serves. */
  CLUSTER_ID("GSHARE_CLUSTER_ID"),
  TEMPORAL_ADDRESS("GSHARE_TEMPORAL_ADDRESS"),
  TEMPORAL_NAMESPACE("GSHARE_TEMPORAL_NAMESPACE"),
  CONTROL_PLANE_URL("GSHARE_CONTROL_PLANE_URL"),
  TOKEN_FILE("GSHARE_TOKEN_FILE"),
  INVENTORY_INTERVAL("GSHARE_INVENTORY_INTERVAL"),
  /** Seconds between volume syncs (the chart's {@code operator.volumeSyncInterval}; default 300). */
  VOLUME_SYNC_INTERVAL("GSHARE_VOLUME_SYNC_INTERVAL");

  private final String variable;

  WorkerEnv(String variable) {
    this.variable = variable;
  }

  /** The variable's name, e.g. {@code GSHARE_CLUSTER_ID}. */
  public String variable() {
    return variable;
  }
}
