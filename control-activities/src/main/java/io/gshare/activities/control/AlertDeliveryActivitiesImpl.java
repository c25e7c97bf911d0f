package io.gshare.activities.control;

import io.gshare.core.alert.AlertName;
import io.gshare.core.alert.Alerts;
import io.gshare.core.alert.Alerts.Alert;
import io.gshare.core.alert.EndedAlertConditions;
import io.gshare.workflows.alert.AlertBatch;
import io.gshare.workflows.alert.AlertDeliveryActivities;
import io.gshare.workflows.common.TaskQueues;
import java.time.Duration;
import java.util.List;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Admin alert delivery ({@code AlertDelivery}, run by the Schedule {@code alert-delivery}): resolves the alerts whose
 * condition has ended, then empties the alerts outbox into the webhook. The rows are claimed with SKIP LOCKED and a
 * batch is one transaction, so two deliveries at once (another replica's worker, a retried attempt beside the one it
 * replaced) never send one twice; a failed send is retried with backoff; a status delivered is never sent again.
 */
@ActivitiesOn(taskQueue = TaskQueues.CONTROL)
public class AlertDeliveryActivitiesImpl implements AlertDeliveryActivities {

  private static final Logger log = LoggerFactory.getLogger(AlertDeliveryActivitiesImpl.class);
  static final int BATCH = 20;

  private final Alerts alerts;
  private final EndedAlertConditions ended;
  private final AlertWebhook webhook;
  private final IntFunction<Duration> retryAfter;
  private final TransactionTemplate transactions;

  /**
   * @param webhook where alerts go; null when they are only listed ({@code GET /api/v1/alerts})
   * @param retryAfter the wait before the next try after so many failed ones
   */
  public AlertDeliveryActivitiesImpl(Alerts alerts, EndedAlertConditions ended, AlertWebhook webhook,
      IntFunction<Duration> retryAfter, TransactionTemplate transactions) {
    this.alerts = alerts;
    this.ended = ended;
    this.webhook = webhook;
    this.retryAfter = retryAfter;
    this.transactions = transactions;
  }

  @Override
  public int resolveEnded() {
    int resolved = 0;
    for (AlertName name : AlertName.values()) {
      List<String> firing = alerts.firingObjects(name);
      if (!firing.isEmpty()) {
        for (String objectId : ended.ended(name, firing)) {
          if (alerts.resolve(name, objectId)) {
            resolved++;
          }
        }
      }
    }
    return resolved;
  }

  /** One batch in one transaction: the claimed rows stay locked until it ends. */
  @Override
  public AlertBatch deliverBatch() {
    if (webhook == null) {
      return AlertBatch.NONE;
    }
    AlertBatch batch = transactions.execute(tx -> {
      List<Alert> due = alerts.claimUndelivered(BATCH);
      int delivered = 0;
      for (Alert alert : due) {
        String error = webhook.send(alert);
        if (error == null) {
          alerts.delivered(alert.id(), alert.status());
          delivered++;
        } else {
          alerts.failed(alert.id(), error, retryAfter.apply(alert.attempts()));
          log.warn("alert {} ({} {}) not delivered (attempt {}): {}", alert.name(), alert.objectKind(),
              alert.objectId(), alert.attempts() + 1, error);
        }
      }
      return new AlertBatch(due.size(), delivered, due.size() == BATCH);
    });
    return batch == null ? AlertBatch.NONE : batch;
  }
}
