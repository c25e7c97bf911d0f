package io.gshare.workflows.session;

import java.util.List;

/**
 * What one recovery pass did.
 *
 * @param unfinished the sessions it looked at (not ended in Postgres)
 * @param restarted the sessions given a new workflow from their row
 * @param ended the sessions ended as failed, lost before they were placed
 * @param unreachable the sessions it could not recover this time (Temporal or Postgres failed): the next pass tries
 *     again
 */
public record SessionRecoveryPass(int unfinished, List<String> restarted, List<String> ended, List<String> unreachable) {

  public SessionRecoveryPass {
    restarted = List.copyOf(restarted);
    ended = List.copyOf(ended);
    unreachable = List.copyOf(unreachable);
  }
}
