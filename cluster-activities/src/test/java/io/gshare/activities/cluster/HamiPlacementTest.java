package io.gshare.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.gshare.activities.cluster.model.HamiPlacement;
import io.gshare.workflows.session.GpuPlacement;
import java.util.List;
import org.junit.jupiter.api.Test;

class HamiPlacementTest {

  @Test
  void aSliceAsksHamiForItsMemoryAndCoresOnTheChosenCard() {
    GpuPlacement slice = new GpuPlacement("clu_a", "nod_1", "gpu-a", "fractional", "NVIDIA A100-SXM4-40GB",
        List.of("GPU-1"), 10240, 25, false);

    assertThat(HamiPlacement.resources(slice).getLimits()).hasSize(3)
        .hasEntrySatisfying("nvidia.com/gpu", q -> assertThat(q.getAmount()).isEqualTo("1"))
        .hasEntrySatisfying("nvidia.com/gpumem", q -> assertThat(q.getAmount()).isEqualTo("10240"))
        .hasEntrySatisfying("nvidia.com/gpucores", q -> assertThat(q.getAmount()).isEqualTo("25"));
    assertThat(HamiPlacement.annotations(slice)).containsEntry("nvidia.com/use-gpuuuid", "GPU-1");
  }

  @Test
  void wholeGpusAreExclusiveAndPinnedToTheirNode() {
    GpuPlacement whole = new GpuPlacement("clu_a", "nod_2", "gpu-h", "exclusive", "NVIDIA H100 80GB HBM3",
        List.of("GPU-7", "GPU-8"), null, null, true);
    PodSpec spec = HamiPlacement.pin(new PodSpec(), whole);

    assertThat(HamiPlacement.resources(whole).getLimits())
        .hasEntrySatisfying("nvidia.com/gpu", q -> assertThat(q.getAmount()).isEqualTo("2"))
        .hasEntrySatisfying("nvidia.com/gpucores", q -> assertThat(q.getAmount()).isEqualTo("100"))
        .doesNotContainKey("nvidia.com/gpumem");
    assertThat(HamiPlacement.annotations(whole)).containsEntry("nvidia.com/use-gpuuuid", "GPU-7,GPU-8");
    assertThat(spec.getRuntimeClassName()).isEqualTo("nvidia");
    assertThat(spec.getSchedulerName()).isEqualTo("hami-scheduler");
    assertThat(spec.getNodeSelector()).containsEntry("kubernetes.io/hostname", "gpu-h");
  }
}
