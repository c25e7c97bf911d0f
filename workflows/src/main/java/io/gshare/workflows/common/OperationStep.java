package io.gshare.workflows.common;

/**
 * One step of a long operation as a person follows it.
 *
 * @param status {@code pending}, {@code running}, {@code done}, {@code failed} or {@code skipped}
 * @param detail what the step found or why it failed; null when there is nothing to say
 * @param startedAt epoch millis (workflow time), or 0 when not started
 * @param endedAt epoch millis (workflow time), or 0 when not ended
 */
public record OperationStep(String name, String status, String detail, long startedAt, long endedAt) {

  public static final String PENDING = "pending";
  public static final String RUNNING = "running";
  public static final String DONE = "done";
  public static final String FAILED = "failed";
}
