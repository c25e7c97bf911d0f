package io.gshare.workflows.alert;

import io.gshare.workflows.common.WorkflowIds;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Admin alert delivery ({@value WorkflowIds#ALERT_DELIVERY}), run every {@code gshare.alerts.delivery-interval} by
 * the Temporal Schedule of the same id: the alerts whose condition has ended are resolved, then each alert whose
 * current status the webhook has not taken is sent to it. A Schedule, not a timer in each api process: one delivery
 * pass at a time however many replicas run; the outbox rows are claimed with SKIP LOCKED besides, so even two passes
 * at once (a retried batch beside the attempt it replaced) never send a status twice.
 */
@WorkflowInterface
public interface AlertDeliveryWorkflow {

  @WorkflowMethod(name = "AlertDelivery")
  AlertDeliveryRun deliver();
}
