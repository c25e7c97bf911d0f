package io.gshare.api.internalplane;

import io.gshare.api.node.InventoryReport;
import io.gshare.api.node.NodeRepository;
import io.gshare.api.security.Caller;
import io.gshare.api.session.SessionSignals;
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
  private final SessionSignals sessions;

  InternalReportsController(InternalReportService reports, SessionSignals sessions) {
    this.reports = reports;
    this.sessions = sessions;
  }

  @PostMapping("/inventory")
  @Operation(summary = "Upsert every node and GPU of the worker's cluster (one batched call per tick)")
  NodeRepository.Applied inventory(Caller.Operator caller, @Valid @RequestBody InventoryReport report) {
    return reports.inventory(caller, report);
  }

  @PostMapping("/sessions/status")
  @Operation(summary = "Report the pods behind sessions of the worker's cluster (complete: all of them)")
  InternalReports.Accepted status(Caller.Operator caller, @Valid @RequestBody InternalReports.StatusReport report) {
    InternalReportService.StatusApplied applied = reports.sessionStatus(caller, report);
    // After the commit, outside the transaction: the workflows decide, this only tells them.
    applied.podsLost().forEach(sessions::podLost);
    return new InternalReports.Accepted(applied.written());
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
