package io.gshare.api.internalplane;

import io.gshare.contract.internal.UsageReport;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * How far a cluster-worker's clock is from the control plane's, measured on a usage report: the worker stamps its
 * samples just before it sends them, so the newest stamp of a report should be the moment it arrived, give or take
 * the query and the network. Past {@link #TOLERANCE} the stamps are moved onto the control plane's clock, so a
 * worker minutes ahead or behind neither hides its samples (a stamp in the future is never read) nor moves an idle
 * session's pause by minutes.
 *
 * @param workerAhead how far ahead the worker's clock is (negative: behind); zero within the tolerance
 */
record ClockSkew(Duration workerAhead) {

  /** Skews under a minute are left alone: the idle reaper counts minutes, and a slow report is not a skewed clock. */
  static final Duration TOLERANCE = Duration.ofMinutes(1);

  static final ClockSkew NONE = new ClockSkew(Duration.ZERO);

  /** The skew a report shows; {@link #NONE} without samples or within the tolerance. */
  static ClockSkew of(UsageReport report, Instant receivedAt) {
    Instant newest = report.samples().stream().map(UsageReport.Sample::sampledAt).max(Instant::compareTo).orElse(null);
    if (newest == null) {
      return NONE;
    }
    Duration ahead = Duration.between(receivedAt, newest);
    return ahead.abs().compareTo(TOLERANCE) <= 0 ? NONE : new ClockSkew(ahead);
  }

  boolean skewed() {
    return !workerAhead.isZero();
  }

  /** A worker's time on the control plane's clock. */
  Instant toControlPlane(Instant workerTime) {
    return workerTime == null ? null : workerTime.minus(workerAhead);
  }

  /** The report with every stamp on the control plane's clock. */
  UsageReport corrected(UsageReport report) {
    if (!skewed()) {
      return report;
    }
    List<UsageReport.Sample> samples = report.samples().stream().map(s -> new UsageReport.Sample(s.sessionId(),
        s.gpuUuid(), s.gpuUtilPercent(), s.memoryUsedMib(), toControlPlane(s.sampledAt()),
        toControlPlane(s.lastKernelAt()), s.source())).toList();
    List<UsageReport.Xid> xids = report.xids().stream()
        .map(x -> new UsageReport.Xid(x.gpuUuid(), x.code(), toControlPlane(x.observedAt()))).toList();
    return new UsageReport(samples, xids);
  }
}
