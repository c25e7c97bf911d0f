package io.gshare.api.operation;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.Caller;
import io.gshare.core.error.ProblemCode;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "operations")
class OperationController {

  private final OperationService operations;

  OperationController(OperationService operations) {
    this.operations = operations;
  }

  @GetMapping("/api/v1/operations")
  @Operation(summary = "Every operation on an object (?object_kind=cluster|session|user|node|volume&object_id=), newest first,"
      + " from Temporal visibility, each with its Temporal Web UI link")
  @ProblemResponses({ProblemCode.FORBIDDEN, ProblemCode.NOT_FOUND, ProblemCode.TEMPORAL_UNAVAILABLE})
  OperationService.OperationList list(Caller.User caller, @RequestParam("object_kind") String objectKind,
      @RequestParam("object_id") String objectId) {
    return operations.listByObject(caller, objectKind, objectId);
  }

  @GetMapping("/api/v1/operations/{workflowId}")
  @Operation(summary = "A long operation (e.g. cluster-attach-<id>): running, completed or failed with why, its steps and the next one")
  OperationService.Operation get(Caller.User caller, @PathVariable String workflowId) {
    return operations.get(caller, workflowId);
  }
}
