package io.gshare.workflows.session;

import io.gshare.workflows.common.WorkflowIds;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Session recovery ({@value WorkflowIds#SESSION_RECOVERY}), run by the Temporal Schedule of the same id every
 * {@code gshare.sessions.recovery-retry-interval} and once as soon as an api process has ensured the Schedule: every
 * unfinished session whose workflow Temporal no longer has (a dev server forgets everything on restart) gets a new
 * workflow built from its Postgres row, so it converges. A Schedule, not a timer in each api process: one pass at a
 * time however many replicas run.
 */
@WorkflowInterface
public interface SessionRecoveryWorkflow {

  @WorkflowMethod(name = "SessionRecovery")
  SessionRecoveryPass recover();
}
