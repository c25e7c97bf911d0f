package io.gshare.workflows.common;

import io.temporal.failure.TemporalFailure;

/** What workflows tell people about a failure: the innermost cause's own words. */
public final class Failures {

  private Failures() {}

  /** The root cause's message, without the wrapping Temporal adds around an activity's failure. */
  public static String rootMessage(Throwable t) {
    Throwable cause = t;
    while (cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause instanceof TemporalFailure failure ? failure.getOriginalMessage() : cause.getMessage();
  }
}
