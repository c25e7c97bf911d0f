package io.gshare.core.metrics;

import java.util.List;

/**
 * What a metric query is about, resolved from gShare's own rows: the cluster whose Prometheus answers and the label
 * values that select the series.
 *
 * @param prometheusUrl the cluster's {@code prometheus_url}; null when it has none
 * @param hostname the node (node scope; a card's node)
 * @param gpuUuids the cards (gpu scope: one; session scope: the session's)
 * @param namespace, pod, container the session's container (session scope; cluster scope: the namespace only)
 */
public record MetricTarget(MetricQuery.Scope scope, String clusterId, String prometheusUrl, String hostname,
    List<String> gpuUuids, String namespace, String pod, String container) {

  public MetricTarget {
    gpuUuids = gpuUuids == null ? List.of() : List.copyOf(gpuUuids);
  }
}
