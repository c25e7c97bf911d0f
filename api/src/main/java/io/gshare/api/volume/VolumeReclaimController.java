package io.gshare.api.volume;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.volume.VolumeReclaimWorkflow;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowException;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** An admin resumes a reclaim that stopped on a claim that would not go. */
@RestController
@AdminOnly
@Tag(name = "volumes")
class VolumeReclaimController {

  private final WorkflowClient client;

  VolumeReclaimController(WorkflowClient client) {
    this.client = client;
  }

  record OperationRef(String id, String href) {}

  @PostMapping("/api/v1/volumes/{id}/reclaim/retry")
  @ResponseStatus(HttpStatus.ACCEPTED)
  @Operation(summary = "Retry a stopped volume reclaim (admins), once what held its claims is gone; 409 when no reclaim runs")
  @ProblemResponses({ProblemCode.CONFLICT, ProblemCode.TEMPORAL_UNAVAILABLE})
  OperationRef retry(Caller.User caller, @PathVariable String id) {
    String workflowId = WorkflowIds.volumeReclaim(id);
    try {
      client.newUntypedWorkflowStub(workflowId).signal(VolumeReclaimWorkflow.RETRY);
    } catch (WorkflowException notRunning) {
      throw new GshareException(ProblemCode.CONFLICT, "no reclaim of volume " + id + " is running",
          Map.of("operation_id", workflowId));
    }
    return new OperationRef(workflowId, "/api/v1/operations/" + workflowId);
  }
}
