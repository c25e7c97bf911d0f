package io.gshare.api.node;

import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.node.NodeQueries;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "nodes")
class NodeController {

  private final NodeQueries nodes;
  private final NodeProperties properties;

  NodeController(NodeQueries nodes, NodeProperties properties) {
    this.nodes = nodes;
    this.properties = properties;
  }

  record NodeList(List<NodeQueries.Node> items) {}

  record GpuList(List<NodeQueries.GpuLocation> items) {}

  @GetMapping("/api/v1/nodes")
  @Operation(summary = "Nodes and their GPUs as the cluster-workers report them (admins); offline after the stale time; "
      + "include_removed=true adds the nodes gone from their cluster's report (offline, with removed_at) until they are deleted")
  @AdminOnly
  NodeList list(Caller.User caller,
      @RequestParam(name = "cluster_id", required = false) String clusterId,
      @RequestParam(name = "pool_id", required = false) String poolId,
      @RequestParam(required = false) String liveness,
      @RequestParam(name = "gpu_mode", required = false) String gpuMode,
      @RequestParam(name = "include_removed", defaultValue = "false") boolean includeRemoved) {
    return new NodeList(nodes.list(new NodeQueries.Filter(clusterId, poolId, liveness, gpuMode, includeRemoved),
        properties.staleAfter()));
  }

  @GetMapping("/api/v1/gpus")
  @Operation(summary = "GPU cards of the inventory (admins), by model (exact), node or cluster")
  @AdminOnly
  GpuList gpus(Caller.User caller,
      @RequestParam(required = false) String model,
      @RequestParam(name = "node_id", required = false) String nodeId,
      @RequestParam(name = "cluster_id", required = false) String clusterId) {
    return new GpuList(nodes.gpus(model, nodeId, clusterId));
  }
}
