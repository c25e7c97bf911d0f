package io.gshare.workflows.cluster;

import static io.gshare.workflows.common.Failures.rootMessage;

import io.gshare.workflows.common.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.api.enums.v1.TimeoutType;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

public class ClusterProbeWorkflowImpl implements ClusterProbeWorkflow {

  private static final Logger log = Workflow.getLogger(ClusterProbeWorkflowImpl.class);

  @Override
  public ClusterProbeResult probe(ClusterProbeRequest request) {
    String clusterId = request.clusterId();
    ClusterActivities cluster =
        Workflow.newActivityStub(
            ClusterActivities.class,
            ActivityOptions.newBuilder()
                .setTaskQueue(TaskQueues.cluster(clusterId))
                // A cluster whose worker is gone must answer "unreachable" quickly, not hang.
                .setScheduleToStartTimeout(request.workerWaitOrDefault())
                .setStartToCloseTimeout(Duration.ofSeconds(30))
                .setRetryOptions(
                    RetryOptions.newBuilder()
                        .setInitialInterval(Duration.ofSeconds(1))
                        .setBackoffCoefficient(2)
                        .setMaximumAttempts(3)
                        .build())
                .build());
    try {
      ClusterDescription description = cluster.describeCluster();
      Map<String, Boolean> checks = RuntimeChecks.of(description);
      List<String> failures = RuntimeChecks.failures(checks);
      String status = failures.isEmpty() ? ClusterProbeResult.CONNECTED : ClusterProbeResult.DEGRADED;
      return new ClusterProbeResult(
          clusterId, status, checks, failures.isEmpty() ? null : String.join("; ", failures), description);
    } catch (ActivityFailure failure) {
      if (failure.getCause() instanceof TimeoutFailure timeout
          && timeout.getTimeoutType() == TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START) {
        log.warn("no cluster-worker polled {} within {}", TaskQueues.cluster(clusterId), request.workerWaitOrDefault());
        return new ClusterProbeResult(
            clusterId,
            ClusterProbeResult.UNREACHABLE,
            Map.of("worker_polling", false),
            WorkerNotPolling.problem(clusterId, request.workerWaitOrDefault()),
            null);
      }
      String why = rootMessage(failure);
      log.warn("describing cluster {} failed: {}", clusterId, why);
      return new ClusterProbeResult(
          clusterId, ClusterProbeResult.ERROR, Map.of("worker_polling", true), "the cluster-worker failed: " + why, null);
    }
  }
}
