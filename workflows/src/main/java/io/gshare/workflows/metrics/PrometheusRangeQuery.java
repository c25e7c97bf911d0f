package io.gshare.workflows.metrics;

/**
 * One range query for a cluster's Prometheus, run by that cluster's worker (which reaches it; the control plane may
 * not). The PromQL is one of the named queries, built by the control plane from its own rows.
 *
 * @param prometheusUrl the cluster's {@code prometheus_url}, as the worker inside the cluster reaches it
 * @param start, end, step seconds since the epoch, and between points
 */
public record PrometheusRangeQuery(String prometheusUrl, String promql, long start, long end, long step) {}
