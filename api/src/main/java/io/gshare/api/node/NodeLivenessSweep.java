package io.gshare.api.node;

import io.gshare.core.alert.AlertName;
import io.gshare.core.alert.Alerts;
import io.gshare.core.node.OfflineNodes;
import io.gshare.core.node.OfflineNodes.Offline;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * Raises the admin alert for nodes whose worker stopped reporting them: once per outage, as a
 * {@code node.offline} audit event and a NodeOffline alert (delivered by {@code AlertDelivery}, which also resolves it
 * once the node is reported again). Several api replicas may sweep at once; {@link OfflineNodes} hands
 * each alert to exactly one of them.
 */
@Component
class NodeLivenessSweep implements SchedulingConfigurer {

  private static final Logger log = LoggerFactory.getLogger(NodeLivenessSweep.class);

  private final OfflineNodes nodes;
  private final NodeProperties properties;
  private final Alerts alerts;

  NodeLivenessSweep(OfflineNodes nodes, NodeProperties properties, Alerts alerts) {
    this.nodes = nodes;
    this.properties = properties;
    this.alerts = alerts;
  }

  /** Every {@code gshare.node.sweep-interval}, first after one interval. */
  @Override
  public void configureTasks(ScheduledTaskRegistrar tasks) {
    tasks.addFixedDelayTask(new FixedDelayTask(this::sweep, properties.sweepInterval(), properties.sweepInterval()));
  }

  void sweep() {
    for (Offline node : nodes.markAlerted(properties.staleAfter())) {
      alerts.raise(AlertName.NODE_OFFLINE, node.id(), node.clusterId(), "node " + node.hostname()
          + " of cluster " + node.clusterId() + " has not been reported for " + properties.staleAfter().toSeconds() + "s");
      log.warn("node {} of cluster {} is offline (no report for {}s)", node.hostname(), node.clusterId(),
          properties.staleAfter().toSeconds());
    }
  }
}
