package io.gshare.api.internalplane;

import io.gshare.api.node.InventoryReport;
import io.gshare.api.node.NodeRepository;
import io.gshare.api.security.Caller;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Callbacks from cluster-workers; every one needs an operator token and stays inside its cluster. */
@RestController
@RequestMapping("/internal/v1")
@Tag(name = "internal")
class InternalReportsController {

  private final InternalReportService reports;

  InternalReportsController(InternalReportService reports) {
    this.reports = reports;
  }

  @PostMapping("/inventory")
  @Operation(summary = "Upsert every node and GPU of the worker's cluster (one batched call per tick)")
  NodeRepository.Applied inventory(Caller.Operator caller, @Valid @RequestBody InventoryReport report) {
    return reports.inventory(caller, report);
  }

  @PostMapping("/sessions/status")
  @Operation(summary = "Report the pods behind sessions of the worker's cluster")
  InternalReports.Accepted status(Caller.Operator caller, @Valid @RequestBody InternalReports.StatusReport report) {
    return new InternalReports.Accepted(reports.sessionStatus(caller, report));
  }

  @PostMapping("/usage")
  @Operation(summary = "Record GPU usage samples of sessions of the worker's cluster")
  InternalReports.Accepted usage(Caller.Operator caller, @Valid @RequestBody InternalReports.UsageReport report) {
    return new InternalReports.Accepted(reports.usage(caller, report));
  }

  @PostMapping("/volumes/sync")
  @Operation(summary = "Sync the claims and usage of volumes the worker's cluster mounts")
  InternalReports.Accepted volumes(Caller.Operator caller, @Valid @RequestBody InternalReports.VolumeSync sync) {
    return new InternalReports.Accepted(reports.volumes(caller, sync));
  }
}
