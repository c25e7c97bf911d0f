package io.gshare.activities.control;

import io.gshare.core.alert.AlertName;
import io.gshare.core.alert.Alerts;
import io.gshare.core.node.OfflineNodes;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.node.NodeLivenessActivities;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Raises the admin alert for nodes whose worker stopped reporting them: once per outage, as a NodeOffline alert
 * (delivered by the Schedule {@code alert-delivery}, which also resolves it once the node is reported again). The
 * mark and the alert are one transaction, so a retried sweep neither loses nor doubles an alert.
 */
@ActivitiesOn(taskQueue = TaskQueues.CONTROL)
public class NodeLivenessActivitiesImpl implements NodeLivenessActivities {

  private static final Logger log = LoggerFactory.getLogger(NodeLivenessActivitiesImpl.class);

  private final OfflineNodes nodes;
  private final Alerts alerts;
  private final Duration staleAfter;
  private final TransactionTemplate transactions;

  /** @param staleAfter a node not reported for this long is offline ({@code gshare.node.stale-after}) */
  public NodeLivenessActivitiesImpl(OfflineNodes nodes, Alerts alerts, Duration staleAfter,
      TransactionTemplate transactions) {
    this.nodes = nodes;
    this.alerts = alerts;
    this.staleAfter = staleAfter;
    this.transactions = transactions;
  }

  @Override
  public List<String> alertOfflineNodes() {
    return transactions.execute(status -> nodes.markAlerted(staleAfter).stream().map(node -> {
      alerts.raise(AlertName.NODE_OFFLINE, node.id(), node.clusterId(), "node " + node.hostname() + " of cluster "
          + node.clusterId() + " has not been reported for " + staleAfter.toSeconds() + "s");
      log.warn("node {} of cluster {} is offline (no report for {}s)", node.hostname(), node.clusterId(),
          staleAfter.toSeconds());
      return node.hostname();
    }).toList());
  }
}
