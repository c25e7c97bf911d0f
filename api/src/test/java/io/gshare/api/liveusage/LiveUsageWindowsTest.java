package io.gshare.api.liveusage;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.contract.internal.LiveUsage;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LiveUsageWindowsTest {

  private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");

  private static LiveUsage.SessionSample sample(String session, int second) {
    return new LiveUsage.SessionSample(session, T0.plusSeconds(second), second, 1, 0, 0, null, null);
  }

  @Test
  void aWindowKeepsTheLastTwoMinutesInOrderAndDropsReplays() {
    LiveUsageWindows windows = new LiveUsageWindows(Clock.fixed(T0, ZoneOffset.UTC));
    for (int s = 0; s < LiveUsageWindows.WINDOW + 10; s++) {
      windows.received(List.of(sample("ses_a", s)));
    }
    windows.received(List.of(sample("ses_a", 5), sample("ses_a", LiveUsageWindows.WINDOW + 9)));
    List<LiveUsage.SessionSample> window = windows.window("ses_a");
    assertThat(window).hasSize(LiveUsageWindows.WINDOW);
    assertThat(window.get(0).sampledAt()).isEqualTo(T0.plusSeconds(10));
    assertThat(window.get(window.size() - 1).sampledAt()).isEqualTo(T0.plusSeconds(LiveUsageWindows.WINDOW + 9));
    assertThat(windows.window("ses_other")).isEmpty();
  }

  @Test
  void aViewerGetsNewSamplesOfItsSessionUntilItStops() throws Exception {
    LiveUsageWindows windows = new LiveUsageWindows(Clock.fixed(T0, ZoneOffset.UTC));
    List<LiveUsage.SessionSample> seen = new ArrayList<>();
    AutoCloseable watch = windows.watch("ses_a", seen::add);
    windows.received(List.of(sample("ses_a", 1), sample("ses_b", 1), sample("ses_a", 1), sample("ses_a", 2)));
    assertThat(seen).extracting(LiveUsage.SessionSample::cpuCores).containsExactly(1.0, 2.0);
    assertThat(windows.viewerCount()).isEqualTo(1);
    watch.close();
    windows.received(List.of(sample("ses_a", 3)));
    assertThat(seen).hasSize(2);
    assertThat(windows.viewerCount()).isZero();
  }

  @Test
  void sessionsWithoutSamplesForFiveMinutesAreForgotten() {
    Instant[] now = {T0};
    Clock clock = new Clock() {
      @Override public ZoneOffset getZone() { return ZoneOffset.UTC; }
      @Override public Clock withZone(ZoneId zone) { return this; }
      @Override public Instant instant() { return now[0]; }
    };
    LiveUsageWindows windows = new LiveUsageWindows(clock);
    windows.received(List.of(sample("ses_old", 0)));
    now[0] = T0.plus(LiveUsageWindows.FORGET_AFTER).plusSeconds(1);
    windows.received(List.of(sample("ses_new", 400)));
    assertThat(windows.window("ses_old")).isEmpty();
    assertThat(windows.window("ses_new")).hasSize(1);
  }
}
