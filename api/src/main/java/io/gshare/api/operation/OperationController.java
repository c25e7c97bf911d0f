package io.gshare.api.operation;

import io.gshare.api.security.Caller;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "operations")
class OperationController {

  private final OperationService operations;

  OperationController(OperationService operations) {
    this.operations = operations;
  }

  @GetMapping("/api/v1/operations/{workflowId}")
  @Operation(summary = "A long operation (e.g. cluster-attach-<id>): running, completed or failed with why, its steps and the next one")
  OperationService.Operation get(Caller.User caller, @PathVariable String workflowId) {
    return operations.get(caller, workflowId);
  }
}
