package io.gshare.api.node;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.node.GpuCordon;
import io.gshare.core.node.NodeQueries;
import io.gshare.core.node.NodeRemoval;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * An admin's changes to the inventory: deleting a node that has left its cluster, and cordoning a GPU
 * card. The checks and the audit events are the domain's ({@link NodeRemoval}, {@link GpuCordon}).
 */
@RestController
@Tag(name = "nodes")
class NodeAdminController {

  private final NodeRemoval removal;
  private final GpuCordon cordon;

  private final NodeDrainService nodes;

  NodeAdminController(NodeRemoval removal, GpuCordon cordon, NodeDrainService nodes) {
    this.nodes = nodes;
    this.removal = removal;
    this.cordon = cordon;
  }

  @DeleteMapping("/api/v1/nodes/{id}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  @Operation(summary = "Delete an offline node and its GPU records, keeping the billing history (admins); "
      + "409 node_live while its cluster's worker still reports it, 409 node_busy naming the sessions still on it")
  @AdminOnly
  @ProblemResponses({ProblemCode.NODE_BUSY, ProblemCode.NODE_LIVE})
  void delete(Caller.User caller, @PathVariable String id) {
    removal.delete(id, caller.actor());
  }

  @PostMapping("/api/v1/gpus/{uuid}/cordon")
  @Operation(summary = "Cordon a GPU card (admins): placement skips it, sessions on it keep running; idempotent")
  @AdminOnly
  @ProblemResponses({ProblemCode.TEMPORAL_UNAVAILABLE})
  NodeQueries.GpuLocation cordon(Caller.User caller, @PathVariable String uuid) {
    return withHamiAnnotation(cordon.set(uuid, true, caller.actor()));
  }

  @PostMapping("/api/v1/gpus/{uuid}/uncordon")
  @Operation(summary = "Uncordon a GPU card (admins): placement may use it again; idempotent")
  @AdminOnly
  @ProblemResponses({ProblemCode.TEMPORAL_UNAVAILABLE})
  NodeQueries.GpuLocation uncordon(Caller.User caller, @PathVariable String uuid) {
    return withHamiAnnotation(cordon.set(uuid, false, caller.actor()));
  }

  /**
   * HAMi 2.10+ reads the node's {@code hami.io/device-cordon}: the node's whole cordoned set is written
   * through its cluster's worker (a workflow), also when nothing changed here, so a lost write converges.
   */
  private NodeQueries.GpuLocation withHamiAnnotation(GpuCordon.Cordoned cordoned) {
    nodes.syncDeviceCordon(cordoned.gpu().nodeId());
    return cordoned.gpu();
  }
}
