package io.gshare.workflows.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gshare.workflows.session.CheckpointTarget;
import io.gshare.workflows.session.SessionVolume;
import org.junit.jupiter.api.Test;

class KubeNamesTest {

  @Test
  void anIdBecomesADnsLabelUnderItsPrefix() {
    assertThat(KubeNames.of("gshare", "ses_k2j8")).isEqualTo("gshare-ses-k2j8");
    assertThat(KubeNames.of("gshare-ckpt", "ses_k2j8")).isEqualTo("gshare-ckpt-ses-k2j8");
    assertThat(KubeNames.of("gshare", "vol_Ab1")).as("uppercase is lowered").isEqualTo("gshare-vol-ab1");
    assertThat(KubeNames.of("gshare", "clu-a_b")).isEqualTo("gshare-clu-a-b");
  }

  @Test
  void theNamesGshareAlreadyUsesStayTheSame() {
    assertThat(SessionVolume.claimNameOf("vol_k2j8")).isEqualTo("gshare-vol-k2j8");
    assertThat(new CheckpointTarget("10.10.0.191:5000/gshare-checkpoints", "buildah").imageFor("ses_k2j8", 1L))
        .isEqualTo("10.10.0.191:5000/gshare-checkpoints/gshare-ses-k2j8:ckpt-1");
  }

  @Test
  void whatIsNotADnsLabelIsRefused() {
    String longest = "s".repeat(KubeNames.MAX_LENGTH - "gshare-".length());
    assertThat(KubeNames.of("gshare", longest)).hasSize(63);
    assertThatThrownBy(() -> KubeNames.of("gshare", longest + "s")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("63");
    assertThatThrownBy(() -> KubeNames.of("gshare", "ses_")).as("must end alphanumeric")
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> KubeNames.of("gshare", "ses/1")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> KubeNames.of("gshare", "ses.1")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> KubeNames.of("gshare", "")).isInstanceOf(IllegalArgumentException.class);
  }
}
