package io.gshare.workflows.common;

/**
 * The types of the application failures gShare's activities and workflows raise, in one naming
 * scheme (snake_case, as the API's problem codes): retry options name them, callers match them.
 * A refusal from the domain (placement) travels as its problem code ({@code insufficient_capacity}, ...).
 */
public final class FailureTypes {

  /** The session's pod failed (OOMKilled, image pull, exit): waiting longer cannot help. */
  public static final String POD_FAILED = "pod_failed";
  /**
   * HAMi refuses a session's GPU as cordoned though gShare holds it uncordoned: HAMi reads its cordons only when it
   * registers a node again, so only a restart of HAMi's scheduler lets the pod start. Waiting cannot help.
   */
  public static final String CARD_CORDON_NOT_SEEN = "card_cordon_not_seen";
  /** The cluster refused the session's pod (RuntimeClass {@code nvidia} missing, say): trying again cannot help. */
  public static final String POD_REFUSED = "pod_refused";
  /** A checkpoint cannot be taken (pod not running, no archive): pause cold instead. */
  public static final String CHECKPOINT_IMPOSSIBLE = "checkpoint_impossible";
  /** A resume that could not start its pod; the session is paused again. */
  public static final String RESUME_FAILED = "resume_failed";
  /** The cluster's new session domain could not be routed to a running session (its old URL may still answer). */
  public static final String REROUTE_FAILED = "reroute_failed";
  /** Prometheus refused a metric query (bad request) or answered too much: asking again cannot help. */
  public static final String METRIC_QUERY_REFUSED = "metric_query_refused";
  /**
   * A session's pause or resume refused at once because one is under way and another waits behind it (its update
   * validator's refusal): the API answers {@code operation_in_progress}.
   */
  public static final String SESSION_BUSY = "session_busy";
  /** An attach that stopped at a step it cannot pass. */
  public static final String CLUSTER_ATTACH_FAILED = "cluster_attach_failed";

  private FailureTypes() {}
}
