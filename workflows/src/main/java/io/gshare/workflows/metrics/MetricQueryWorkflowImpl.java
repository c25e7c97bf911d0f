package io.gshare.workflows.metrics;

import io.gshare.workflows.common.FailureTypes;
import io.gshare.workflows.common.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;

/**
 * Asks the cluster's worker once, with one retry: a caller waits for the answer, so the whole query is bounded
 * (schedule-to-close 20 s, a worker that does not pick it up within that is a failure the caller is told about).
 */
public class MetricQueryWorkflowImpl implements MetricQueryWorkflow {

  @Override
  public List<MetricSeries> query(String clusterId, PrometheusRangeQuery query) {
    MetricQueryActivities worker = Workflow.newActivityStub(MetricQueryActivities.class, ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.cluster(clusterId))
        .setStartToCloseTimeout(Duration.ofSeconds(15))
        .setScheduleToCloseTimeout(Duration.ofSeconds(20))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(2).setInitialInterval(Duration.ofSeconds(1))
            .setDoNotRetry(FailureTypes.METRIC_QUERY_REFUSED).build())
        .build());
    return worker.queryRange(query);
  }
}
