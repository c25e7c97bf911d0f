package io.gshare.api.node;

import io.gshare.activities.control.NodeDrainActivitiesImpl;
import io.gshare.activities.control.VolumeReclaimActivitiesImpl;
import io.gshare.core.volume.VolumeReclaims;
import io.gshare.api.temporal.ControlWorker;
import io.gshare.core.node.NodeDrains;
import io.gshare.core.operation.OperationRepository;
import io.temporal.client.WorkflowClient;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The node drain's and the volume reclaim's control activities, on the same repositories as the HTTP layer. */
@Configuration(proxyBeanMethods = false)
class NodeActivitiesConfig {

  @Bean
  ControlWorker.ControlActivities nodeDrainActivities(NodeDrains drains, OperationRepository operations,
      WorkflowClient client, VolumeReclaims reclaims) {
    return new ControlWorker.ControlActivities(List.of(new NodeDrainActivitiesImpl(drains, operations, client),
        new VolumeReclaimActivitiesImpl(reclaims, operations)));
  }
}
