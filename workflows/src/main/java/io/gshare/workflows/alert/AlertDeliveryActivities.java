package io.gshare.workflows.alert;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Alert delivery's steps, against Postgres (the alerts outbox) and the webhook. Runs on gshare-control. */
@ActivityInterface
public interface AlertDeliveryActivities {

  /**
   * Resolves the firing alerts whose condition is over (a node reported again, a token renewed, a volume reclaimed);
   * answers how many. Idempotent: a resolved alert is not firing any more.
   */
  @ActivityMethod(name = "ResolveEndedAlerts")
  int resolveEnded();

  /**
   * Claims one batch of alerts whose status the webhook has not taken and whose next attempt is due (locked with
   * SKIP LOCKED until the batch's transaction ends), sends each and records what the receiver answered: taken, or
   * failed and tried again after a backoff. Without a webhook it claims nothing. A retry after a failure claims what
   * is still undelivered: a status the receiver took and that was recorded is never sent again.
   */
  @ActivityMethod(name = "DeliverAlertBatch")
  AlertBatch deliverBatch();
}
