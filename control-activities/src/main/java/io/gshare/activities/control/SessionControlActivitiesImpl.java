package io.gshare.activities.control;

import io.gshare.core.credit.BillingWindows;
import io.gshare.core.error.GshareException;
import io.gshare.core.placement.PlacementService;
import io.gshare.core.session.SessionRepository;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.session.GpuPlacement;
import io.gshare.workflows.session.SessionControlActivities;
import io.gshare.workflows.session.SessionRecord;
import io.temporal.failure.ApplicationFailure;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A session's control-plane side: placement, its row, its billing windows, each through the domain
 * (core) that the HTTP layer uses too. Each call is idempotent.
 */
@ActivitiesOn(taskQueue = TaskQueues.CONTROL)
public class SessionControlActivitiesImpl implements SessionControlActivities {

  private final SessionRepository sessions;
  private final BillingWindows billing;
  private final PlacementService placement;
  private final TransactionTemplate transactions;

  public SessionControlActivitiesImpl(SessionRepository sessions, BillingWindows billing, PlacementService placement,
      TransactionTemplate transactions) {
    this.sessions = sessions;
    this.billing = billing;
    this.placement = placement;
    this.transactions = transactions;
  }

  /**
   * Re-admits and places the session for a resume. Whatever it held is given back and asked for anew in
   * one transaction: a retried attempt must not free its GPUs for someone else between the two. A
   * session lives on one cluster (its URL, its volume's claim and its checkpoint are there). A refusal
   * is non-retryable, typed with its problem code.
   */
  @Override
  public GpuPlacement place(String sessionId) {
    SessionRepository.PlacementAsk ask = sessions.placementAskOf(sessionId);
    try {
      return transactions.execute(tx -> {
        placement.release(sessionId);
        return placement.allocate(new PlacementService.Request(sessionId, ask.userId(), ask.offeringId(), ask.clusterId()))
            .placement();
      });
    } catch (GshareException refused) {
      throw ApplicationFailure.newNonRetryableFailure(refused.getMessage(), refused.code().code());
    }
  }

  @Override
  public void record(SessionRecord r) {
    sessions.record(r);
  }

  @Override
  public void markRunning(SessionRecord running) {
    sessions.record(running);
    billing.open(running.sessionId());
  }

  @Override
  public void settle(SessionRecord stopped) {
    billing.close(stopped.sessionId());
    placement.release(stopped.sessionId());
    sessions.record(stopped);
  }
}
