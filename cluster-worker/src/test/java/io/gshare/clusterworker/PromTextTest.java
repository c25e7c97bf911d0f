package io.gshare.clusterworker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The exposition-format reading the worker's usage reporter and the usage agent share. */
class PromTextTest {

  @Test
  void readsTheWantedSamplesAndSkipsWhatItCannotRead() {
    List<PromText.Series> series = PromText.parse("""
        # HELP m a metric
        # TYPE m gauge
        m{pod="a",note="quoted \\"}\\" and \\\\ slash"} 0.5 1700000000000
        m 3
        m{pod="b",} +Inf
        other{pod="a"} 1
        m{pod="c" 2
        m{pod="d"} not-a-number

        """, Set.of("m"));

    assertThat(series).containsExactly(
        new PromText.Series("m", Map.of("pod", "a", "note", "quoted \"}\" and \\ slash"), 0.5),
        new PromText.Series("m", Map.of(), 3),
        new PromText.Series("m", Map.of("pod", "b"), Double.POSITIVE_INFINITY));
  }

  @Test
  void hamisGpuFiguresArePerPod() {
    var byPod = HamiGpuSeries.read("""
        hami_vgpu_memory_used_bytes{namespace="gshare-sessions",pod="p",container="c",vdevice_index="0",device_uuid="G1"} 100
        hami_vgpu_memory_used_bytes{namespace="gshare-sessions",pod="p",container="c",vdevice_index="1",device_uuid="G2"} 50
        hami_container_device_utilization_ratio{namespace="gshare-sessions",pod="p",container="c",vdevice_index="0",device_uuid="G1"} 0.1
        hami_container_device_utilization_ratio{namespace="gshare-sessions",pod="p",container="c",vdevice_index="1",device_uuid="G2"} 0.3
        hami_container_device_utilization_ratio{namespace="gshare-sessions",pod="q",container="c",vdevice_index="0",device_uuid="G3"} 1.5
        hami_container_device_utilization_ratio{namespace="kube-system",pod="r",container="c",vdevice_index="0",device_uuid="G3"} 1
        """);
    assertThat(byPod).containsOnlyKeys("p", "q");
    assertThat(byPod.get("p")).isEqualTo(new HamiGpuSeries.PodGpu(150L, 30.0));
    assertThat(byPod.get("q")).as("clamped to 100 %, no memory series").isEqualTo(new HamiGpuSeries.PodGpu(null, 100.0));
  }
}
