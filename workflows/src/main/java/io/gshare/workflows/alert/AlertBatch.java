package io.gshare.workflows.alert;

/**
 * One delivery batch.
 *
 * @param claimed the alerts it claimed
 * @param delivered of those, the ones the receiver took (the rest failed and wait for their next attempt)
 * @param full the batch was full: more may be due
 */
public record AlertBatch(int claimed, int delivered, boolean full) {

  public static final AlertBatch NONE = new AlertBatch(0, 0, false);
}
