package io.gshare.workflows.session;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Session recovery's one step, against Postgres and Temporal. Runs on gshare-control. */
@ActivityInterface
public interface SessionRecoveryActivities {

  /**
   * Looks at every unfinished session and gives each whose workflow is not running a new one from its row (or ends it
   * as failed when it was lost before it was placed). Heartbeats once per session. Idempotent: a session it recovered
   * has a running workflow, which a retry leaves alone; the start itself reuses a workflow already running under the
   * session's id.
   */
  @ActivityMethod(name = "RecoverLostSessions")
  SessionRecoveryPass recoverLostSessions();
}
