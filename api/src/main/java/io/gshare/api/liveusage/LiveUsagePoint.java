package io.gshare.api.liveusage;

import io.gshare.contract.internal.LiveUsage;
import java.time.Instant;

/**
 * One point of the live chart, as the stream sends it: the agent's sample without the session id (the stream is
 * one session's). GPU fields are absent where the node has no HAMi monitor.
 */
public record LiveUsagePoint(Instant sampledAt, double cpuCores, long memoryBytes, double ioReadBytesPerSecond,
    double ioWriteBytesPerSecond, Long gpuMemoryBytes, Double gpuUtilPercent) {

  static LiveUsagePoint of(LiveUsage.SessionSample s) {
    return new LiveUsagePoint(s.sampledAt(), s.cpuCores(), s.memoryBytes(), s.ioReadBytesPerSecond(),
        s.ioWriteBytesPerSecond(), s.gpuMemoryBytes(), s.gpuUtilPercent());
  }
}
