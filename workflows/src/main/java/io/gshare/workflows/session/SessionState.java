package io.gshare.workflows.session;

import io.gshare.workflows.common.WireEnum;
import java.util.EnumSet;
import java.util.Set;

/**
 * Where a session stands; the wire and database value is the lower-case name ({@code sessions.state}'s
 * CHECK constraint lists the same values, and a test says so).
 */
public enum SessionState implements WireEnum {
  PENDING, CREATING, RUNNING, PAUSING, PAUSED, RESUMING, TERMINATING, TERMINATED, FAILED;

  /** States that hold or are about to hold GPUs: they count against a policy's concurrency limit. */
  public static final Set<SessionState> LIVE = EnumSet.of(PENDING, CREATING, RUNNING, PAUSING, RESUMING);

  /** Ended for good: no command applies, no workflow runs. */
  public boolean ended() {
    return this == TERMINATED || this == FAILED;
  }

  /** @throws IllegalArgumentException for a value that is not a state */
  public static SessionState fromWire(String value) {
    return WireEnum.require(SessionState.class, value, "session state");
  }
}
