package io.gshare.workflows.metrics;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/** One named metric query of an admin or a session's owner, run on the cluster's worker and answered at once. */
@WorkflowInterface
public interface MetricQueryWorkflow {

  @WorkflowMethod(name = "MetricQuery")
  List<MetricSeries> query(String clusterId, PrometheusRangeQuery query);
}
