package io.gshare.sim.kube;

/**
 * What an injected apiserver fault answers ({@link FaultProxy}): the status, reason and message a real kube-apiserver
 * gives in its {@code metav1.Status} for each.
 */
public enum ApiFaultKind {
  INTERNAL_ERROR(500, "InternalError", "Internal error occurred: etcdserver: request timed out"),
  UNAVAILABLE(503, "ServiceUnavailable", "the server is currently unable to handle the request"),
  TOO_MANY_REQUESTS(429, "TooManyRequests",
      "the server has received too many requests and has asked us to try again later"),
  /** A list or watch from a resource version the apiserver no longer keeps (after an etcd compaction). */
  GONE(410, "Expired", "too old resource version: 1 (2)"),
  /**
   * The request is forwarded and applied by the real apiserver, then answered 504: an apiserver whose request timed
   * out after its storage write did.
   */
  TIMEOUT_AFTER_WRITE(504, "Timeout",
      "the server was unable to return a response in the time allotted, but may still be processing the request"),
  /** A watch whose stream ends at once with no event, as an apiserver or a load balancer closes a watch it drops. */
  DROPPED(200, "", "");

  /** The seconds a 429 asks the client to wait, in {@code Retry-After} and {@code details.retryAfterSeconds}. */
  public static final int RETRY_AFTER_SECONDS = 1;

  private final int code;
  private final String reason;
  private final String message;

  ApiFaultKind(int code, String reason, String message) {
    this.code = code;
    this.reason = reason;
    this.message = message;
  }

  public int code() {
    return code;
  }

  public String reason() {
    return reason;
  }

  public String message() {
    return message;
  }
}
