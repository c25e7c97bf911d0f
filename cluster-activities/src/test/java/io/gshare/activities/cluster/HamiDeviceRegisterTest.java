package io.gshare.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gshare.workflows.cluster.GpuDeviceInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

class HamiDeviceRegisterTest {

  @Test
  void readsTheJsonEncodingOfHami28AndLater() {
    List<GpuDeviceInfo> devices = HamiDeviceRegister.parse(
        "[{\"index\":1,\"id\":\"GPU-a\",\"count\":10,\"devmem\":40960,\"devcore\":100,"
            + "\"type\":\"NVIDIA-NVIDIA A100-SXM4-40GB\",\"numa\":0,\"health\":true},"
            + "{\"id\":\"GPU-b\",\"type\":\"NVIDIA-NVIDIA A100-SXM4-40GB\"}]");

    assertThat(devices).containsExactly(
        new GpuDeviceInfo("GPU-a", 1, "NVIDIA A100-SXM4-40GB", 40960, 100, 10, true),
        // omitempty: missing fields are zero values, a missing index is the position
        new GpuDeviceInfo("GPU-b", 1, "NVIDIA A100-SXM4-40GB", 0, 0, 0, false));
  }

  @Test
  void readsTheLegacyColonSeparatedEncoding() {
    List<GpuDeviceInfo> devices = HamiDeviceRegister.parse(
        "GPU-0055,10,32768,100,NVIDIA-Tesla V100-PCIE-32GB,0,true:GPU-0056,10,32768,100,NVIDIA-Tesla V100-PCIE-32GB,1,false,7,hami-core:");

    assertThat(devices).containsExactly(
        new GpuDeviceInfo("GPU-0055", 0, "Tesla V100-PCIE-32GB", 32768, 100, 10, true),
        new GpuDeviceInfo("GPU-0056", 7, "Tesla V100-PCIE-32GB", 32768, 100, 10, false));
  }

  @Test
  void anAbsentAnnotationMeansNoDevices() {
    assertThat(HamiDeviceRegister.parse(null)).isEmpty();
    assertThat(HamiDeviceRegister.parse(" ")).isEmpty();
    assertThat(HamiDeviceRegister.parse("[]")).isEmpty();
  }

  @Test
  void aBrokenAnnotationIsAClearError() {
    assertThatThrownBy(() -> HamiDeviceRegister.parse("GPU-1,10,abc,100,NVIDIA-X,0,true:"))
        .hasMessageContaining("bad number");
    assertThatThrownBy(() -> HamiDeviceRegister.parse("GPU-1,10:")).hasMessageContaining("expected uuid,count");
    assertThatThrownBy(() -> HamiDeviceRegister.parse("[{\"type\":\"x\"}]")).hasMessageContaining("without an id");
    assertThatThrownBy(() -> HamiDeviceRegister.parse("[{")).hasMessageContaining("unreadable");
  }

  @Test
  void stripsOnlyHamisVendorPrefix() {
    assertThat(HamiDeviceRegister.modelOf("NVIDIA-NVIDIA H100 80GB HBM3")).isEqualTo("NVIDIA H100 80GB HBM3");
    assertThat(HamiDeviceRegister.modelOf("NVIDIA H100 80GB HBM3")).isEqualTo("NVIDIA H100 80GB HBM3");
  }
}
