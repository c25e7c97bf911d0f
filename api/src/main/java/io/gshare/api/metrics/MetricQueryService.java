package io.gshare.api.metrics;

import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.metrics.MetricQuery;
import io.gshare.core.metrics.MetricTarget;
import io.gshare.core.metrics.MetricWindow;
import io.gshare.core.support.NewIds;
import io.gshare.workflows.common.FailureTypes;
import io.gshare.workflows.common.SearchAttributes;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.metrics.MetricQueryWorkflow;
import io.gshare.workflows.metrics.MetricSeries;
import io.gshare.workflows.metrics.PrometheusRangeQuery;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TemporalFailure;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Service;

/**
 * Runs a named metric query: its PromQL built from the target gShare resolved, asked by the target cluster's worker
 * (inside the cluster, where its Prometheus is) through a short workflow, answered as series.
 */
@Service
public class MetricQueryService {

  /** What a query answers: the name, its unit, the PromQL run (admins see what was asked), the series. */
  public record Answer(String name, String unit, String clusterId, String query, MetricWindow window,
      List<MetricSeries> series) {}

  private final WorkflowClient client;

  MetricQueryService(WorkflowClient client) {
    this.client = client;
  }

  public Answer run(MetricQuery query, MetricTarget target, MetricWindow window) {
    String promql;
    try {
      promql = query.promqlFor(target);
    } catch (IllegalArgumentException e) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, e.getMessage());
    }
    if (target.prometheusUrl() == null || target.prometheusUrl().isBlank()) {
      throw new GshareException(ProblemCode.CONFLICT, "cluster " + target.clusterId() + " has no prometheus_url:"
          + " deploy the monitoring stack there (make deploy-monitoring) and PATCH /api/v1/clusters/"
          + target.clusterId() + " {\"prometheus_url\":\"http://prometheus.monitoring.svc:9090\"}",
          Map.of("cluster_id", target.clusterId()));
    }
    String workflowId = WorkflowIds.metricQuery(NewIds.next("mq"));
    MetricQueryWorkflow workflow = client.newWorkflowStub(MetricQueryWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(workflowId)
        .setTaskQueue(TaskQueues.CONTROL)
        .setWorkflowExecutionTimeout(Duration.ofSeconds(30))
        .setTypedSearchAttributes(io.temporal.common.SearchAttributes.newBuilder()
            .set(SearchAttributes.CLUSTER_ID, target.clusterId()).build())
        .build());
    List<MetricSeries> series;
    try {
      series = workflow.query(target.clusterId(), new PrometheusRangeQuery(target.prometheusUrl(), promql,
          window.start().getEpochSecond(), window.end().getEpochSecond(), window.step().toSeconds()));
    } catch (WorkflowFailedException e) {
      Throwable cause = e.getCause();
      while (cause instanceof TemporalFailure && cause.getCause() != null && !(cause instanceof ApplicationFailure)) {
        cause = cause.getCause();
      }
      if (cause instanceof ApplicationFailure app && FailureTypes.METRIC_QUERY_REFUSED.equals(app.getType())) {
        throw new GshareException(ProblemCode.VALIDATION_FAILED, app.getOriginalMessage());
      }
      String why = cause instanceof ApplicationFailure app ? app.getOriginalMessage()
          : cause == null ? e.getMessage() : cause.getMessage();
      throw new GshareException(ProblemCode.CLUSTER_UNREACHABLE, "cluster " + target.clusterId()
          + "'s Prometheus did not answer through its worker: " + why, Map.of("operation_id", workflowId));
    }
    return new Answer(query.wireName(), query.unit(), target.clusterId(), promql, window, series);
  }
}
