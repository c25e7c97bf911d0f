package io.gshare.workflows.common;

import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.SignalExternalWorkflowException;

/** Signals one workflow sends another, which may have ended meanwhile. */
public final class ExternalSignals {

  /** The failure cause the server reports when the signalled workflow does not exist (or has closed). */
  static final String NOT_FOUND = "SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND";

  private ExternalSignals() {}

  /**
   * Sends the signal {@code send} makes; false when its target workflow is not running (the SDK reports that as
   * a {@link SignalExternalWorkflowException} or as an {@link ApplicationFailure} of type {@value #NOT_FOUND},
   * depending on the stub). Any other failure is thrown.
   */
  public static boolean signal(Runnable send) {
    try {
      send.run();
      return true;
    } catch (SignalExternalWorkflowException | ApplicationFailure failure) {
      if (isGone(failure)) {
        return false;
      }
      throw failure;
    }
  }

  /** Whether a signal failed because its target workflow is not running. */
  public static boolean isGone(RuntimeException failure) {
    return failure instanceof SignalExternalWorkflowException
        || failure instanceof ApplicationFailure application && NOT_FOUND.equals(application.getType());
  }
}
