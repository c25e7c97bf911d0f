package io.gshare.workflows.image;

/**
 * What a pre-pull did on one node.
 *
 * @param outcome {@link #PULLED}, {@link #ALREADY_PRESENT} or {@link #FAILED}
 * @param detail for a failure, why (the kubelet's reason and message); otherwise null or a note
 */
public record NodePull(String hostname, String outcome, String detail) {

  public static final String PULLED = "pulled";
  public static final String ALREADY_PRESENT = "already present";
  public static final String FAILED = "failed";

  public static NodePull pulled(String hostname) {
    return new NodePull(hostname, PULLED, null);
  }

  public static NodePull alreadyPresent(String hostname) {
    return new NodePull(hostname, ALREADY_PRESENT, null);
  }

  public static NodePull failed(String hostname, String why) {
    return new NodePull(hostname, FAILED, why);
  }

  /** Static, so Jackson does not see a {@code failed} property on the wire. */
  public static boolean failed(NodePull pull) {
    return FAILED.equals(pull.outcome());
  }

  /** {@code a6000-1: pulled}, {@code a6000-2: failed: ErrImagePull: ...}. */
  @Override
  public String toString() {
    return hostname + ": " + outcome + (detail == null || detail.isEmpty() ? "" : ": " + detail);
  }
}
