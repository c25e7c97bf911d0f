package io.gshare.api.node;

import io.gshare.activities.control.NodeDrainActivitiesImpl;
import io.gshare.api.temporal.ControlWorker;
import io.gshare.core.node.NodeDrains;
import io.gshare.core.operation.OperationRepository;
import io.temporal.client.WorkflowClient;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The node drain's control activities, on the same repositories as the HTTP layer. */
@Configuration(proxyBeanMethods = false)
class NodeActivitiesConfig {

  @Bean
  ControlWorker.ControlActivities nodeDrainActivities(NodeDrains drains, OperationRepository operations,
      WorkflowClient client) {
    return new ControlWorker.ControlActivities(List.of(new NodeDrainActivitiesImpl(drains, operations, client)));
  }
}
