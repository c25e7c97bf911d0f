package io.gshare.api.volume;

import io.gshare.api.operation.OperationService;
import io.gshare.workflows.common.SearchAttributes;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.volume.ReclaimRequest;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Starts {@code volume-reclaim-<volumeId>}, an untyped {@value ReclaimRequest#WORKFLOW_TYPE} workflow on
 * {@code gshare-control} with a {@link ReclaimRequest} and the {@code GshareVolumeId} search attribute, and
 * signals it {@value ReclaimRequest#RESTORE_SIGNAL}. Untyped, so the api needs nothing of the workflow but
 * these names.
 */
@Component
class TemporalVolumeReclaimStarter implements VolumeReclaimStarter {

  private static final Logger log = LoggerFactory.getLogger(TemporalVolumeReclaimStarter.class);

  private final WorkflowClient client;
  private final OperationService operations;

  TemporalVolumeReclaimStarter(WorkflowClient client, OperationService operations) {
    this.client = client;
    this.operations = operations;
  }

  @Override
  public void start(String volumeId, Duration grace) {
    // Recorded first, so GET /api/v1/operations/volume-reclaim-<id> answers from the grace period's start.
    operations.started(WorkflowIds.volumeReclaim(volumeId), "volume.reclaim", volumeId, null);
    client.newUntypedWorkflowStub(ReclaimRequest.WORKFLOW_TYPE, WorkflowOptions.newBuilder()
            .setWorkflowId(WorkflowIds.volumeReclaim(volumeId))
            .setTaskQueue(TaskQueues.CONTROL)
            // A run left from an earlier delete (restored since) gives way: this delete's grace starts now.
            .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING)
            .setTypedSearchAttributes(io.temporal.common.SearchAttributes.newBuilder()
                .set(SearchAttributes.VOLUME_ID, volumeId).build())
            .build())
        .start(new ReclaimRequest(volumeId, grace.toSeconds()));
  }

  @Override
  public void restore(String volumeId) {
    try {
      client.newUntypedWorkflowStub(WorkflowIds.volumeReclaim(volumeId)).signal(ReclaimRequest.RESTORE_SIGNAL);
    } catch (WorkflowNotFoundException notRunning) {
      // Nothing will reclaim it: the restore stands on the volume's row alone.
      log.warn("volume {} restored with no reclaim workflow running", volumeId);
    }
  }
}
