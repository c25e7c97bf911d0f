package io.gshare.api.cluster;

import io.gshare.core.cluster.ClusterRepository;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.workflows.cluster.ClusterProbeRequest;
import io.gshare.workflows.cluster.ClusterProbeResult;
import io.gshare.workflows.cluster.ClusterProbeWorkflow;
import io.gshare.workflows.common.SearchAttributes;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.stereotype.Service;

/**
 * Runs the cluster probe workflow and records its verdict. The HTTP layer calls no apiserver: the cluster's own worker
 * describes the cluster, reached through Temporal (the control activities that attach and detach clusters do reach
 * an apiserver, with the stored kubeconfig).
 */
@Service
public class ConnectionTestService {

  static final Duration WAIT_FOR_RESULT = Duration.ofSeconds(90);

  private final WorkflowClient client;
  private final ClusterRepository clusters;

  ConnectionTestService(WorkflowClient client, ClusterRepository clusters) {
    this.client = client;
    this.clusters = clusters;
  }

  public ClusterProbeResult test(String clusterId) {
    clusters.findById(clusterId).orElseThrow(() -> GshareException.notFound("cluster", clusterId));
    ClusterProbeWorkflow probe = client.newWorkflowStub(ClusterProbeWorkflow.class,
        WorkflowOptions.newBuilder()
            .setWorkflowId(WorkflowIds.clusterProbe(clusterId))
            .setTaskQueue(TaskQueues.CONTROL)
            // Two operators pressing "test" at once share one probe.
            .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
            .setWorkflowExecutionTimeout(WAIT_FOR_RESULT)
            .setTypedSearchAttributes(io.temporal.common.SearchAttributes.newBuilder()
                .set(SearchAttributes.CLUSTER_ID, clusterId).build())
            .build());
    ClusterProbeResult result;
    try {
      result = WorkflowClient.execute(probe::probe, new ClusterProbeRequest(clusterId))
          .get(WAIT_FOR_RESULT.toSeconds(), TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new GshareException(ProblemCode.CLUSTER_UNREACHABLE,
          "the connection test of " + clusterId + " did not finish within " + WAIT_FOR_RESULT.toSeconds() + "s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while testing " + clusterId, e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException(e.getCause());
    }
    String status = switch (result.status()) {
      case ClusterProbeResult.CONNECTED -> "connected";
      case ClusterProbeResult.DEGRADED -> "degraded";
      default -> "unreachable";
    };
    clusters.recordProbe(clusterId, status, result.reason(),
        result.description() == null ? null : result.description().serverVersion(), result.description() != null);
    return result;
  }
}
