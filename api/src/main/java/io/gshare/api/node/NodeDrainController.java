package io.gshare.api.node;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.node.NodeDrains;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Size;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** Node drain and uncordon, for admins; each answers 202 with the operation to follow. */
@RestController
@AdminOnly
@Tag(name = "nodes")
class NodeDrainController {

  private final NodeDrainService drains;

  NodeDrainController(NodeDrainService drains) {
    this.drains = drains;
  }

  /**
   * @param mode migrate (default), pause or terminate
   * @param deadlineSeconds how long the drain may take (default 900)
   * @param reason shown to the users whose sessions are moved
   */
  record DrainBody(String mode, Long deadlineSeconds, @Size(max = 500) String reason) {}

  record OperationRef(String id, String href) {}

  @Schema(name = "NodeOperationAccepted")
  record Accepted(NodeDrains.Target node, OperationRef operation) {}

  @PostMapping("/api/v1/nodes/{id}/drain")
  @ResponseStatus(HttpStatus.ACCEPTED)
  @Operation(summary = "Drain a node (admins): cordon it, move (or pause, or end) its sessions, evict the other pods;"
      + " 409 operation_in_progress while a drain of it runs")
  @ProblemResponses({ProblemCode.OPERATION_IN_PROGRESS, ProblemCode.TEMPORAL_UNAVAILABLE})
  Accepted drain(Caller.User caller, @PathVariable String id, @Valid @RequestBody(required = false) DrainBody body) {
    DrainBody request = body == null ? new DrainBody(null, null, null) : body;
    return accepted(drains.drain(caller, id, request.mode(), request.deadlineSeconds(), request.reason()));
  }

  @PostMapping("/api/v1/nodes/{id}/uncordon")
  @ResponseStatus(HttpStatus.ACCEPTED)
  @Operation(summary = "Undo a drain (admins): stop one under way, make the node schedulable again")
  @ProblemResponses({ProblemCode.OPERATION_IN_PROGRESS, ProblemCode.TEMPORAL_UNAVAILABLE})
  Accepted uncordon(Caller.User caller, @PathVariable String id) {
    return accepted(drains.uncordon(caller, id));
  }

  private static Accepted accepted(NodeDrainService.Started started) {
    return new Accepted(started.node(), new OperationRef(started.operationId(),
        "/api/v1/operations/" + started.operationId()));
  }
}
