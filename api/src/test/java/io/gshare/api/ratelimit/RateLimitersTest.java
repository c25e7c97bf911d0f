package io.gshare.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RateLimitersTest {

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final RateLimiters limiters = new RateLimiters(new RateLimitProperties(3, 5), meters);

  @Test
  void aCallerOverItsLimitIsRefusedAndCountedWhileOthersKeepTheirs() {
    long granted = IntStream.range(0, 50).filter(i -> limiters.tryAcquire(RateLimit.CLUSTER_REPORTS, "clu_a")).count();
    // One second's permits, or two if the refill fell inside the burst.
    assertThat(granted).isBetween(5L, 10L);
    // Another cluster, and the same id under another limit, are counted apart.
    assertThat(IntStream.range(0, 5).allMatch(i -> limiters.tryAcquire(RateLimit.CLUSTER_REPORTS, "clu_b"))).isTrue();
    assertThat(IntStream.range(0, 3).allMatch(i -> limiters.tryAcquire(RateLimit.USER_COMMANDS, "clu_a"))).isTrue();
    assertThat(meters.get("gshare.requests.rate.limited").tag("limit", "cluster_reports").counter().count())
        .isEqualTo(50 - granted);
    assertThat(meters.get("gshare.requests.rate.limited").tag("limit", "user_commands").counter().count()).isZero();
  }

  @Test
  void permitsComeBackAfterASecond() throws InterruptedException {
    while (limiters.tryAcquire(RateLimit.USER_COMMANDS, "usr_a")) {
      // spend this second's permits
    }
    Thread.sleep(1_100);
    assertThat(limiters.tryAcquire(RateLimit.USER_COMMANDS, "usr_a")).isTrue();
  }
}
