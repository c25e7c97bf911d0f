package io.gshare.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gshare.core.error.GshareException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetricQueryTest {

  private static MetricTarget node(String hostname) {
    return new MetricTarget(MetricQuery.Scope.NODE, "clu_a", "http://p:9090", hostname, List.of(), "gshare-sessions", null, null);
  }

  @Test
  void eachQueryBuildsItsPromqlFromTheResolvedTarget() {
    MetricTarget session = new MetricTarget(MetricQuery.Scope.SESSION, "clu_a", "http://p:9090", null,
        List.of("GPU-1a", "GPU-2b"), "gshare-sessions", "gshare-ses-x", "session");
    assertThat(MetricQuery.GPU_UTILIZATION.promqlFor(session))
        .isEqualTo("max by (UUID, Hostname) (DCGM_FI_DEV_GPU_UTIL{UUID=~\"GPU-1a|GPU-2b\"})");
    assertThat(MetricQuery.SESSION_MEMORY.promqlFor(session)).isEqualTo(
        "sum(container_memory_working_set_bytes{namespace=\"gshare-sessions\",pod=\"gshare-ses-x\",container=\"session\"})");
    assertThat(MetricQuery.NODE_MEMORY.promqlFor(node("gpu-1")))
        .isEqualTo("1 - (node_memory_MemAvailable_bytes{node=\"gpu-1\"} / node_memory_MemTotal_bytes{node=\"gpu-1\"})");
    assertThat(MetricQuery.GPU_MEMORY_USED.promqlFor(node("gpu-1")))
        .isEqualTo("max by (UUID, Hostname) (DCGM_FI_DEV_FB_USED{Hostname=\"gpu-1\"})");
  }

  @Test
  void labelValuesAreEscapedSoNoValueBecomesPromql() {
    // A hostname is a DNS name in practice; even one that is not cannot leave its string literal.
    assertThat(MetricQuery.NODE_CPU.promqlFor(node("a\"}) or vector(1) #\\")))
        .contains("node=\"a\\\"}) or vector(1) #\\\\\"");
    assertThatThrownBy(() -> MetricQuery.NODE_CPU.promqlFor(node("a\nb"))).isInstanceOf(IllegalArgumentException.class);
    assertThat(MetricQuery.alternation(List.of("GPU-a.b", "x|y"))).isEqualTo("GPU-a\\\\.b|x\\\\|y".replace("\\\\", "\\"));
    assertThat(MetricQuery.alternation(List.of())).isEqualTo("^$");
  }

  @Test
  void aQueryIsRefusedForAScopeItIsNotAskedFor() {
    assertThatThrownBy(() -> MetricQuery.SESSION_CPU.promqlFor(node("gpu-1")))
        .hasMessage("session_cpu is asked per session, not per node");
    assertThat(MetricQuery.fromWire("gpu_utilization")).contains(MetricQuery.GPU_UTILIZATION);
    assertThat(MetricQuery.fromWire("up")).isEmpty();
  }

  @Test
  void theWindowIsBoundedAndItsStepComesFromAFixedSet() {
    Instant now = Instant.parse("2026-12-03T12:00:00Z");
    MetricWindow defaults = MetricWindow.parse(null, null, null, now);
    assertThat(defaults.start()).isEqualTo(now.minus(Duration.ofHours(1)));
    assertThat(defaults.step()).isEqualTo(Duration.ofMinutes(1));
    assertThat(MetricWindow.parse("2026-12-03T11:00:00Z", "2026-12-03T11:30:00Z", "15s", now).step())
        .isEqualTo(Duration.ofSeconds(15));
    for (String[] bad : new String[][] {{null, null, "7s"}, {"yesterday", null, null},
        {"2026-12-03T12:00:00Z", "2026-12-03T11:00:00Z", null}, {"2026-10-01T00:00:00Z", null, "1h"},
        {"2026-12-01T00:00:00Z", null, "15s"}}) {
      assertThatThrownBy(() -> MetricWindow.parse(bad[0], bad[1], bad[2], now)).as(String.join(",", String.valueOf(bad[0]),
          String.valueOf(bad[1]), String.valueOf(bad[2]))).isInstanceOf(GshareException.class);
    }
  }
}
