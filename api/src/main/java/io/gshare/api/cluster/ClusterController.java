package io.gshare.api.cluster;

import io.gshare.api.error.GshareException;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.gshare.workflows.cluster.ClusterDescription;
import io.gshare.workflows.cluster.ClusterProbeResult;
import io.gshare.workflows.cluster.GpuDeviceInfo;
import io.gshare.workflows.cluster.NodeInfo;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/clusters")
@Tag(name = "clusters")
class ClusterController {

  private final ClusterRepository clusters;
  private final ConnectionTestService connectionTests;
  private final Access access;

  ClusterController(ClusterRepository clusters, ConnectionTestService connectionTests, Access access) {
    this.clusters = clusters;
    this.connectionTests = connectionTests;
    this.access = access;
  }

  record ClusterList(List<Cluster> items) {}

  @GetMapping
  @Operation(summary = "List registered clusters")
  ClusterList list(Caller.User caller) {
    access.requireAdmin(caller, "cluster", null);
    return new ClusterList(clusters.findAll());
  }

  @GetMapping("/{id}")
  @Operation(summary = "One cluster: status, session domain, worker last seen, node and GPU counts")
  Cluster get(Caller.User caller, @PathVariable String id) {
    access.requireAdmin(caller, "cluster", id);
    return clusters.findById(id).orElseThrow(() -> GshareException.notFound("cluster", id));
  }

  record GpuView(String uuid, int index, String model, long memoryMib, int splitCount, boolean healthy) {}

  record NodeView(String name, boolean ready, boolean schedulable, String gpuMode, boolean losslessPause, List<GpuView> gpus) {}

  /** What the seed's connection test shows, plus what the worker saw. */
  record ConnectionTest(
      String status, Map<String, Boolean> checks, String reason, String apiserverVersion, Boolean simulated,
      Integer gpuCount, List<NodeView> nodes) {}

  @PostMapping("/{id}/connection-test")
  @Operation(summary = "Ask the cluster's worker to describe its cluster and check the runtime (RuntimeClass nvidia, HAMi, ingress)")
  ConnectionTest connectionTest(Caller.User caller, @PathVariable String id,
      @RequestBody(required = false) Map<String, Object> ignored) {
    access.requireAdmin(caller, "cluster", id);
    ClusterProbeResult result = connectionTests.test(id);
    ClusterDescription d = result.description();
    if (d == null) {
      return new ConnectionTest(result.status(), result.checks(), result.reason(), null, null, null, List.of());
    }
    return new ConnectionTest(result.status(), result.checks(), result.reason(), d.serverVersion(), d.simulated(),
        d.gpuCount(), d.nodes().stream().map(ClusterController::view).toList());
  }

  private static NodeView view(NodeInfo n) {
    return new NodeView(n.name(), n.ready(), n.schedulable(), n.gpuMode(), n.losslessPause(),
        n.gpus().stream().map(ClusterController::view).toList());
  }

  private static GpuView view(GpuDeviceInfo g) {
    return new GpuView(g.uuid(), g.index(), g.model(), g.memoryMib(), g.splitCount(), g.healthy());
  }
}
