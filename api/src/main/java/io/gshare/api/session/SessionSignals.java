package io.gshare.api.session;

import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.session.SessionWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** Tells session workflows what the cluster-workers report; the workflows check and decide. */
@Component
public class SessionSignals {

  private static final Logger log = LoggerFactory.getLogger(SessionSignals.class);

  private final WorkflowClient client;

  SessionSignals(WorkflowClient client) {
    this.client = client;
  }

  /** Best effort: the next report says it again if this one is lost. */
  public void podLost(String sessionId, String reason) {
    try {
      client.newWorkflowStub(SessionWorkflow.class, WorkflowIds.session(sessionId)).podLost(reason);
      log.info("session {}: {}; its workflow checks with the cluster", sessionId, reason);
    } catch (WorkflowNotFoundException gone) {
      log.debug("session {} has no running workflow to tell that {}", sessionId, reason);
    } catch (RuntimeException e) {
      log.warn("could not tell session {} that {}: {}", sessionId, reason, e.toString());
    }
  }

  /** Best effort, like {@link #podLost}: the next usage report says it again while the card keeps its Xid. */
  public void gpuFault(String sessionId, String reason) {
    try {
      client.newWorkflowStub(SessionWorkflow.class, WorkflowIds.session(sessionId)).gpuFault(reason);
      log.info("session {}: {}; its workflow pauses it", sessionId, reason);
    } catch (WorkflowNotFoundException gone) {
      log.debug("session {} has no running workflow to tell that {}", sessionId, reason);
    } catch (RuntimeException e) {
      log.warn("could not tell session {} that {}: {}", sessionId, reason, e.toString());
    }
  }
}
