package io.gshare.api.node;

import io.gshare.activities.control.NodeDrainActivitiesImpl;
import io.gshare.activities.control.NodeLivenessActivitiesImpl;
import io.gshare.activities.control.VolumeReclaimActivitiesImpl;
import io.gshare.core.alert.Alerts;
import io.gshare.core.node.NodeDrains;
import io.gshare.core.node.OfflineNodes;
import io.gshare.core.operation.OperationRepository;
import io.gshare.core.volume.VolumeReclaims;
import io.temporal.client.WorkflowClient;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The node drain's, the node liveness sweep's and the volume reclaim's control activities, on the same repositories as the HTTP layer; the control
 * worker registers them by their {@code @ActivitiesOn}.
 */
@Configuration(proxyBeanMethods = false)
class NodeActivitiesConfig {

  @Bean
  NodeDrainActivitiesImpl nodeDrainActivities(NodeDrains drains, OperationRepository operations,
      WorkflowClient client) {
    return new NodeDrainActivitiesImpl(drains, operations, client);
  }

  @Bean
  NodeLivenessActivitiesImpl nodeLivenessActivities(OfflineNodes nodes, Alerts alerts, NodeProperties properties,
      TransactionTemplate transactions) {
    return new NodeLivenessActivitiesImpl(nodes, alerts, properties.staleAfter(), transactions);
  }

  @Bean
  VolumeReclaimActivitiesImpl volumeReclaimActivities(VolumeReclaims reclaims, OperationRepository operations) {
    return new VolumeReclaimActivitiesImpl(reclaims, operations);
  }
}
