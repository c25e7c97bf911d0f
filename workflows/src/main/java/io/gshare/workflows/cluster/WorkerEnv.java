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
  VOLUME_SYNC_INTERVAL("GSHARE_VOLUME_SYNC_INTERVAL"),
  /** Mutual TLS to Temporal: the client certificate (PEM), with {@link #TEMPORAL_TLS_KEY}. */
  TEMPORAL_TLS_CERT("GSHARE_TEMPORAL_TLS_CERT"),
  /** Its private key (PEM, PKCS#8). */
  TEMPORAL_TLS_KEY("GSHARE_TEMPORAL_TLS_KEY"),
  /** The CA that signed Temporal's server certificate (PEM); unset: the JVM's trust store. */
  TEMPORAL_TLS_CA("GSHARE_TEMPORAL_TLS_CA"),
  /** The name to verify Temporal's certificate against, when the address is not it. */
  TEMPORAL_TLS_SERVER_NAME("GSHARE_TEMPORAL_TLS_SERVER_NAME"),
  /**
   * {@code true}: TLS to Temporal even with no CA or client certificate, trusting the JVM's trust store (the
   * internal plane's ingress in front of the control plane's Temporal gateway).
   */
  TEMPORAL_TLS("GSHARE_TEMPORAL_TLS"),
  /** A file holding an API key (a JWT for Temporal's authorizer), sent as a bearer token; read on each call. */
  TEMPORAL_API_KEY_FILE("GSHARE_TEMPORAL_API_KEY_FILE");

  private final String variable;

  WorkerEnv(String variable) {
    this.variable = variable;
  }

  /** The variable's name, e.g. {@code GSHARE_CLUSTER_ID}. */
  public String variable() {
    return variable;
  }
}
