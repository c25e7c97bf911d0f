package io.gshare.workflows.session;

import java.time.Duration;

/**
 * Where a session stands, as its workflow carries it across continue-as-new and as recovery rebuilds
 * it from Postgres.
 *
 * @param state {@code CREATING} for a new session; {@code RUNNING} or {@code PAUSED} to pick up from
 * @param placement where it runs now; null while paused
 * @param runtimeUsed running time already spent in this run (before a continue-as-new or a recovery)
 * @param checkpoint the image of the last lossless pause; null otherwise
 */
public record SessionSnapshot(SessionState state, GpuPlacement placement, Duration runtimeUsed, String checkpoint) {

  /** A new session, placed and about to be created. */
  public static SessionSnapshot creating(GpuPlacement placement) {
    return new SessionSnapshot(SessionState.CREATING, placement, Duration.ZERO, null);
  }
}
