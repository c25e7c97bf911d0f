package io.gshare.workflows.metrics;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/** A cluster's Prometheus, asked by the cluster's worker ({@code gshare-cluster-<clusterId>}). */
@ActivityInterface
public interface MetricQueryActivities {

  /** At most {@link #MAX_SERIES} series are answered; a query Prometheus refuses fails for good with its error. */
  int MAX_SERIES = 200;

  @ActivityMethod(name = "QueryPrometheusRange")
  List<MetricSeries> queryRange(PrometheusRangeQuery query);
}
