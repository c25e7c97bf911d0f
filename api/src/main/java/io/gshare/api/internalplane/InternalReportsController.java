package io.gshare.api.internalplane;

import io.gshare.api.cluster.ClusterService;
import io.gshare.api.error.ProblemResponses;
import io.gshare.api.node.XidResponder;
import io.gshare.api.ratelimit.RateLimit;
import io.gshare.api.ratelimit.RateLimited;
import io.gshare.api.security.Caller;
import io.gshare.api.session.SessionSignals;
import io.gshare.contract.internal.Accepted;
import io.gshare.contract.internal.InternalPaths;
import io.gshare.contract.internal.InventoryAnswer;
import io.gshare.contract.internal.InventoryReport;
import io.gshare.contract.internal.StatusReport;
import io.gshare.contract.internal.UsageAnswer;
import io.gshare.contract.internal.UsageReport;
import io.gshare.contract.internal.VolumeSync;
import io.gshare.contract.internal.VolumeSyncAnswer;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.node.InventoryWriter;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Callbacks from cluster-workers; every one needs an operator token and stays inside its cluster. */
@RestController
@RequestMapping(InternalPaths.BASE)
@RateLimited(RateLimit.CLUSTER_REPORTS)
@Tag(name = "internal")
class InternalReportsController {

  private final InternalReportService reports;
  private final SessionSignals sessions;
  private final XidResponder xids;

  private final ClusterService clusters;

  InternalReportsController(InternalReportService reports, SessionSignals sessions, XidResponder xids,
      ClusterService clusters) {
    this.clusters = clusters;
    this.reports = reports;
    this.sessions = sessions;
    this.xids = xids;
  }

  @PostMapping(InternalPaths.INVENTORY)
  @Operation(summary = "Upsert every node and GPU of the worker's cluster (one batched call per tick)")
  @ProblemResponses({ProblemCode.FORBIDDEN})
  InventoryAnswer inventory(Caller.Operator caller, @Valid @RequestBody InventoryReport report) {
    InventoryWriter.Applied applied = reports.inventory(caller, report);
    // After the commit: the cordon and the pauses act on rows the report wrote.
    xids.respondUnhealthy(caller, applied.gpusTurnedUnhealthy());
    if (Boolean.FALSE.equals(report.tokenSecretPresent())) {
      clusters.restoreTokenSecret(caller.clusterId());
    }
    return new InventoryAnswer(applied.nodesInserted(), applied.nodesUpdated(), applied.gpusInserted(),
        applied.gpusUpdated(), applied.gpusRemoved());
  }

  @PostMapping(InternalPaths.SESSIONS_STATUS)
  @Operation(summary = "Report the pods behind sessions of the worker's cluster (complete: all of them)")
  @ProblemResponses({ProblemCode.FORBIDDEN})
  Accepted status(Caller.Operator caller, @Valid @RequestBody StatusReport report) {
    InternalReportService.StatusApplied applied = reports.sessionStatus(caller, report);
    // After the commit, outside the transaction: the workflows decide, this only tells them.
    applied.podsLost().forEach(sessions::podLost);
    return new Accepted(applied.written());
  }

  @PostMapping(InternalPaths.USAGE)
  @Operation(summary = "Record GPU usage samples of sessions of the worker's cluster")
  @ProblemResponses({ProblemCode.FORBIDDEN})
  UsageAnswer usage(Caller.Operator caller, @Valid @RequestBody UsageReport report) {
    return reports.usage(caller, report);
  }

  @PostMapping(InternalPaths.VOLUMES_SYNC)
  @Operation(summary = "Sync the claims, usage and StorageClasses of the worker's cluster; answers what the worker"
      + " must apply (claims to resize, claims to delete)")
  @ProblemResponses({ProblemCode.FORBIDDEN})
  VolumeSyncAnswer volumes(Caller.Operator caller, @Valid @RequestBody VolumeSync sync) {
    return reports.volumes(caller, sync);
  }
}
