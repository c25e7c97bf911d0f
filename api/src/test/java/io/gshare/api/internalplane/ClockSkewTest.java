package io.gshare.api.internalplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.contract.internal.UsageReport;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClockSkewTest {

  private static final Instant NOW = Instant.parse("2026-12-04T12:00:00Z");

  private static UsageReport taken(Instant newest) {
    return new UsageReport(List.of(
        new UsageReport.Sample("ses_a", "GPU-1", 0.0, null, newest.minusSeconds(5), newest.minusSeconds(90), "hami"),
        new UsageReport.Sample("ses_b", "GPU-2", 50.0, null, newest, null, "dcgm")),
        List.of(new UsageReport.Xid("GPU-1", 79, newest.minusSeconds(2))));
  }

  @Test
  void aWorkerMinutesAheadOrBehindIsMovedOntoTheControlPlanesClock() {
    for (Duration ahead : List.of(Duration.ofMinutes(5), Duration.ofMinutes(-5))) {
      UsageReport received = taken(NOW.plus(ahead));
      ClockSkew skew = ClockSkew.of(received, NOW);
      assertThat(skew.workerAhead()).isEqualTo(ahead);
      UsageReport corrected = skew.corrected(received);
      assertThat(corrected.samples()).extracting(UsageReport.Sample::sampledAt)
          .containsExactly(NOW.minusSeconds(5), NOW);
      assertThat(corrected.samples().get(0).lastKernelAt()).isEqualTo(NOW.minusSeconds(90));
      assertThat(corrected.samples().get(1).lastKernelAt()).isNull();
      assertThat(corrected.xids().get(0).observedAt()).isEqualTo(NOW.minusSeconds(2));
      assertThat(corrected.samples().get(1).gpuUtilPercent()).isEqualTo(50.0);
    }
  }

  @Test
  void aReportWithinAMinuteOrWithoutSamplesIsLeftAlone() {
    UsageReport slow = taken(NOW.minusSeconds(40));
    assertThat(ClockSkew.of(slow, NOW)).isEqualTo(ClockSkew.NONE);
    assertThat(ClockSkew.of(slow, NOW).corrected(slow)).isSameAs(slow);
    assertThat(ClockSkew.of(taken(NOW.plusSeconds(60)), NOW).skewed()).isFalse();
    assertThat(ClockSkew.of(taken(NOW.plusSeconds(61)), NOW).skewed()).isTrue();
    assertThat(ClockSkew.of(new UsageReport(List.of()), NOW)).isEqualTo(ClockSkew.NONE);
  }
}
