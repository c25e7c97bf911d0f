package io.gshare.api.node;

import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.gshare.api.session.SessionSignals;
import io.gshare.contract.internal.UsageReport;
import io.gshare.core.alert.AlertName;
import io.gshare.core.alert.Alerts;
import io.gshare.core.node.GpuCordon;
import io.gshare.core.node.GpuXids;
import io.gshare.core.node.NodeQueries;
import io.gshare.core.node.XidCatalogue;
import io.gshare.core.session.SessionRepository;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * Acts on the fatal Xid errors a cluster's worker reports (its dcgm-exporter's last Xid per card, through the
 * cluster's Prometheus, or a card HAMi's device plugin turned unhealthy). A card-level code cordons the card (and tells HAMi), and pauses the sessions on it with the
 * reason; a node-level code (79) drains the node in pause mode. Either raises the GpuXidFatal alert once. The
 * exporter's gauge keeps the last code until the driver reloads and every report repeats it, so a code is acted on
 * when it changes (a report that fails midway is rolled back and acted on again); an admin uncordons after the
 * repair, which resolves the alert and is not undone by the same stale code.
 */
@Component
public class XidResponder {

  private final NodeQueries nodes;
  private final GpuCordon cordon;
  private final NodeDrainService drains;
  private final Alerts alerts;
  private final SessionRepository sessions;
  private final SessionSignals signals;
  private final Access access;
  private final GpuXids lastXids;

  XidResponder(GpuXids lastXids, NodeQueries nodes, GpuCordon cordon, NodeDrainService drains, Alerts alerts, SessionRepository sessions,
      SessionSignals signals, Access access) {
    this.nodes = nodes;
    this.cordon = cordon;
    this.drains = drains;
    this.alerts = alerts;
    this.sessions = sessions;
    this.signals = signals;
    this.access = access;
    this.lastXids = lastXids;
  }

  public void respond(Caller.Operator caller, List<UsageReport.Xid> xids) {
    for (UsageReport.Xid xid : xids) {
      NodeQueries.GpuLocation gpu = nodes.gpu(xid.gpuUuid()).orElse(null);
      if (gpu == null) {
        continue; // a card the inventory does not know (yet)
      }
      access.requireSameCluster(caller, "gpu", xid.gpuUuid(), gpu.clusterId());
      XidCatalogue.Fatal fatal = XidCatalogue.fatal(xid.code()).orElse(null);
      if (!lastXids.recordChanged(xid.gpuUuid(), xid.code()) || fatal == null) {
        continue; // the code already acted on (or cleared), or not one gShare acts on
      }
      fault(gpu, "GPU " + gpu.index() + " (" + gpu.uuid() + ") of node " + gpu.hostname() + " reported Xid "
          + xid.code() + " (" + fatal.meaning() + ")", fatal.reach() == XidCatalogue.Reach.NODE);
    }
  }

  /**
   * The second source: cards HAMi's device plugin turned unhealthy (it does so on a critical Xid from NVML's event
   * stream, without saying which code), from the inventory the worker just reported. Handled as a card-level fault.
   */
  public void respondUnhealthy(Caller.Operator caller, List<String> gpuUuids) {
    for (String uuid : gpuUuids) {
      NodeQueries.GpuLocation gpu = nodes.gpu(uuid).orElse(null);
      if (gpu == null) {
        continue;
      }
      access.requireSameCluster(caller, "gpu", uuid, gpu.clusterId());
      fault(gpu, "GPU " + gpu.index() + " (" + gpu.uuid() + ") of node " + gpu.hostname()
          + " was reported unhealthy by HAMi's device plugin (a critical Xid)", false);
    }
  }

  private void fault(NodeQueries.GpuLocation gpu, String what, boolean wholeNode) {
    // The card stays cordoned (the alert with it) until an admin uncordons it after the repair. Cordoned before the
    // alert is raised: the delivery resolves a GpuXidFatal whose card is not cordoned, and between the two it once
    // did (firing, resolved and firing again within 110 ms, XidIT in a CI run).
    if (cordon.set(gpu.uuid(), true, "system").changed()) {
      drains.syncDeviceCordon(gpu.nodeId());
    }
    alerts.raise(AlertName.GPU_XID_FATAL, gpu.uuid(), gpu.clusterId(), what + (wholeNode
        ? ": node " + gpu.hostname() + " is drained, its sessions paused; uncordon the node and the card after the repair"
        : ": the card is cordoned and its sessions paused; uncordon it after the repair"));
    if (wholeNode) {
      drains.drainForFault(gpu.nodeId(), what);
      return;
    }
    for (String session : sessions.holding(gpu.uuid())) {
      signals.gpuFault(session, what + "; paused, a resume lands on another card");
    }
  }
}
