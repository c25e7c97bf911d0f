package io.gshare.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IdleReapingTest {

  private static final String HAMI = "http://hami-device-plugin-monitor.kube-system.svc:31992";
  private static final String PROMETHEUS = "http://prometheus.monitoring.svc:9090";

  @Test
  void aClusterWithoutSourcesTakesTheControlPlanesDefaultsAndSaysSo() {
    Cluster.IdleReaping reaping = Cluster.IdleReaping.of(null, null, new IdleSourceDefaults("", HAMI));
    assertThat(reaping.source()).isEqualTo("hami");
    assertThat(reaping.hamiMonitorUrl()).isEqualTo(HAMI);
    assertThat(reaping.enabled()).isTrue();
    assertThat(reaping.note()).contains("hami_monitor_url is the control plane's default");
  }

  @Test
  void aClustersOwnSourceWinsEachOnItsOwn() {
    IdleSourceDefaults defaults = new IdleSourceDefaults(PROMETHEUS, HAMI);
    Cluster.IdleReaping own = Cluster.IdleReaping.of("http://prom.lab.example.com:9090", null, defaults);
    assertThat(own.prometheusUrl()).isEqualTo("http://prom.lab.example.com:9090");
    assertThat(own.source()).isEqualTo("dcgm");
    assertThat(own.note()).doesNotContain("default");
    // Its own HAMi monitor still gives way to a default Prometheus, as its own Prometheus would win.
    Cluster.IdleReaping hamiOnly = Cluster.IdleReaping.of(null, "http://hami.lab.example.com:31992", defaults);
    assertThat(hamiOnly.source()).isEqualTo("dcgm");
    assertThat(hamiOnly.prometheusUrl()).isEqualTo(PROMETHEUS);
    assertThat(hamiOnly.note()).contains("prometheus_url is the control plane's default");
  }

  @Test
  void withNoDefaultsNothingChanges() {
    assertThat(Cluster.IdleReaping.of(null, null, IdleSourceDefaults.NONE))
        .isEqualTo(Cluster.IdleReaping.of(null, null));
    assertThat(IdleSourceDefaults.NONE.any()).isFalse();
    assertThat(new IdleSourceDefaults(" ", null).any()).isFalse();
  }
}
