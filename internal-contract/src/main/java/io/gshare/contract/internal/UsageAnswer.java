package io.gshare.contract.internal;

/**
 * The answer to a {@link UsageReport}: how many samples were written, and where the worker reads GPU activity
 * from its next tick on. The control plane keeps these per cluster (an admin changes them with a cluster
 * PATCH), so the worker learns a change within one tick, without a redeploy.
 *
 * @param prometheusUrl a Prometheus that scrapes the DCGM exporter; takes priority; null when not set
 * @param hamiMonitorUrl HAMi's vGPU monitor ({@code /metrics}); null when not set. Neither: measure nothing
 */
@WireJson
public record UsageAnswer(int accepted, String prometheusUrl, String hamiMonitorUrl) {}
