package io.gshare.core.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.core.session.IdleSessions.Decision;
import io.gshare.core.session.IdleSessions.Known;
import io.gshare.core.session.IdleSessions.Observed;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The idle rule without a database: what a sweep decides from the samples it read. */
class IdleSessionsTest {

  private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");
  private static final Duration STALE = Duration.ofMinutes(2);
  private static final Known NOTHING = new Known(null, null, null, null, null);

  /** A session running since T0 with a 30-minute timeout, sampled every 15 s up to {@code latest}. */
  private static Observed observed(Instant latest, Instant lastBusy, Instant lastKernel, Known known) {
    return new Observed("ses_1", true, 30, T0, latest, T0, lastBusy, lastKernel, "dcgm", known);
  }

  private static Instant at(int minutes) {
    return T0.plus(Duration.ofMinutes(minutes));
  }

  @Test
  void aSessionWhoseLatestSampleIsBusyIsActive() {
    Decision d = IdleSessions.decide(observed(at(20), at(20), null, NOTHING), at(20), STALE);
    assertThat(d.state().idleSince()).isNull();
    assertThat(d.state().warning()).isNull();
    assertThat(d.state().lastActivityAt()).isEqualTo(at(20));
    assertThat(d.state().source()).isEqualTo("dcgm");
    assertThat(d.pause()).isFalse();
  }

  @Test
  void idleCountsFromTheLastActivityAndWarnsTenMinutesBeforeThePause() {
    Decision quiet = IdleSessions.decide(observed(at(24), at(5), null, NOTHING), at(24), STALE);
    assertThat(quiet.state().idleSince()).isEqualTo(at(5));
    assertThat(quiet.state().warning()).as("19 of 30 minutes: the warning starts at 25").isNull();

    Decision warned = IdleSessions.decide(observed(at(26), at(5), null, NOTHING), at(26), STALE);
    assertThat(warned.state().warning()).contains("idle since 10:05 UTC by dcgm", "pauses at 10:35 UTC");
    assertThat(warned.state().pauseAt()).isEqualTo(at(35));
    assertThat(warned.pause()).isFalse();

    Decision due = IdleSessions.decide(observed(at(35), at(5), null, warned.state()), at(35), STALE);
    assertThat(due.pause()).isTrue();
    assertThat(due.idleMinutes()).isEqualTo(30);
  }

  @Test
  void noPauseWithoutAWarningShownAtAnEarlierSweep() {
    // A sweep that finds the timeout already passed (sweeps were missed) warns first and pauses at the next.
    Decision first = IdleSessions.decide(observed(at(40), at(5), null, NOTHING), at(40), STALE);
    assertThat(first.state().warning()).isNotNull();
    assertThat(first.pause()).isFalse();
    assertThat(IdleSessions.decide(observed(at(41), at(5), null, first.state()), at(41), STALE).pause()).isTrue();
  }

  @Test
  void activityAfterTheWarningClearsItAndTheCountStartsOver() {
    Decision warned = IdleSessions.decide(observed(at(26), at(5), null, NOTHING), at(26), STALE);
    Decision woke = IdleSessions.decide(observed(at(27), at(27), null, warned.state()), at(27), STALE);
    assertThat(woke.state().warning()).isNull();
    assertThat(woke.state().idleSince()).isNull();
    assertThat(woke.pause()).isFalse();
    Decision later = IdleSessions.decide(observed(at(36), at(27), null, woke.state()), at(36), STALE);
    assertThat(later.state().idleSince()).isEqualTo(at(27));
    assertThat(later.pause()).isFalse();
  }

  @Test
  void halfTheTimeoutWhenThatIsShorterThanTenMinutes() {
    Observed o = new Observed("ses_1", true, 4, T0, at(2), T0, null, null, "hami", NOTHING);
    assertThat(IdleSessions.decide(o, T0.plusSeconds(110), STALE).state().warning()).isNull();
    assertThat(IdleSessions.decide(o, at(2), STALE).state().warning()).contains("by hami", "pauses at 10:04 UTC");
  }

  @Test
  void aRecentKernelIsActivityEvenAtZeroUtilization() {
    Decision d = IdleSessions.decide(observed(at(40), null, at(33), NOTHING), at(40), STALE);
    assertThat(d.state().idleSince()).isEqualTo(at(33));
    assertThat(d.state().warning()).isNull();
  }

  @Test
  void staleOrMissingSamplesOrNoSourceAreNotIdle() {
    Known warned = new Known("dcgm", at(5), at(5), "idle since 10:05 UTC", at(35));
    Decision stale = IdleSessions.decide(observed(at(30), at(5), null, warned), at(40), STALE);
    assertThat(stale.state()).isEqualTo(new Known(null, null, at(5), null, null));
    assertThat(stale.pause()).isFalse();
    Decision none = IdleSessions.decide(new Observed("ses_1", true, 30, T0, null, null, null, null, null, NOTHING),
        at(40), STALE);
    assertThat(none.state()).isEqualTo(NOTHING);
    Decision off = IdleSessions.decide(new Observed("ses_1", false, 30, T0, at(40), T0, null, null, "dcgm", NOTHING),
        at(40), STALE);
    assertThat(off.state().source()).isNull();
    assertThat(off.pause()).isFalse();
  }

  @Test
  void aHoleInTheSamplesRestartsTheCount() {
    // Samples resumed at minute 20 after a hole: idle counts from there, not from the run's start.
    Observed o = new Observed("ses_1", true, 30, T0, at(45), at(20), null, null, "dcgm", NOTHING);
    Decision d = IdleSessions.decide(o, at(45), STALE);
    assertThat(d.state().idleSince()).isEqualTo(at(20));
    assertThat(d.state().warning()).isNotNull();
    assertThat(d.state().pauseAt()).isEqualTo(at(50));
  }

  @Test
  void withoutATimeoutTheViewShowsIdleButNothingIsPaused() {
    Observed o = new Observed("ses_1", true, null, T0, at(300), T0, null, null, "dcgm", NOTHING);
    Decision d = IdleSessions.decide(o, at(300), STALE);
    assertThat(d.state().idleSince()).isEqualTo(T0);
    assertThat(d.state().warning()).isNull();
    assertThat(d.pause()).isFalse();
  }
}
