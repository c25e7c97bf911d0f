package io.gshare.workflows.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelsTest {

  @Test
  void theKeysAreTheOnesWrittenToClusters() {
    assertThat(Labels.gshare().withName("gshare-cluster-worker").withComponent("session").withSession("ses_1")
        .withUser("usr_1").withVolume("vol_1").withCluster("clu_1").withCheckpointOf("ses_2").toMap())
        .containsExactly(
            entry("app.kubernetes.io/managed-by", "gshare"),
            entry("app.kubernetes.io/part-of", "gshare"),
            entry("app.kubernetes.io/name", "gshare-cluster-worker"),
            entry("app.kubernetes.io/component", "session"),
            entry("gshare.io/session-id", "ses_1"),
            entry("gshare.io/user-id", "usr_1"),
            entry("gshare.io/volume-id", "vol_1"),
            entry("gshare.io/cluster-id", "clu_1"),
            entry("gshare.io/checkpoint-of", "ses_2"));
    assertThat(Labels.managedByGshare().toMap()).containsExactly(entry("app.kubernetes.io/managed-by", "gshare"));
  }

  @Test
  void eachWithReturnsANewValueAndLeavesTheOriginalAlone() {
    Labels base = Labels.gshare();
    Labels session = base.withSession("ses_1");

    assertThat(base.toMap()).doesNotContainKey(LabelKeys.SESSION_ID).hasSize(2);
    assertThat(session).isNotSameAs(base).isNotEqualTo(base);
    assertThat(session).isEqualTo(Labels.gshare().withSession("ses_1"))
        .hasSameHashCodeAs(Labels.gshare().withSession("ses_1"));
    assertThat(Labels.EMPTY.toMap()).isEmpty();
    assertThatThrownBy(() -> session.toMap().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> session.toMap().remove(LabelKeys.SESSION_ID)).isInstanceOf(UnsupportedOperationException.class);
    assertThat(session.withSession("ses_2").toMap()).as("a key is replaced, not added twice")
        .containsEntry(LabelKeys.SESSION_ID, "ses_2").hasSize(3);
    assertThat(session.toMap()).containsEntry(LabelKeys.SESSION_ID, "ses_1");
  }

  @Test
  void theSelectorIsTheNeverChangingSubset() {
    Labels worker = Labels.gshare().withName("gshare-cluster-worker").withCluster("clu_1");

    assertThat(worker.selectorLabels().toMap()).isEqualTo(Map.of(
        "app.kubernetes.io/name", "gshare-cluster-worker", "app.kubernetes.io/part-of", "gshare"));
    assertThat(worker.withCluster("clu_2").selectorLabels()).as("the cluster id may change; the selector may not")
        .isEqualTo(worker.selectorLabels());
    assertThat(Labels.SELECTOR_KEYS).doesNotContain(LabelKeys.MANAGED_BY, LabelKeys.CLUSTER_ID);
    assertThat(worker.toMap()).containsAllEntriesOf(worker.selectorLabels().toMap());
  }

  @Test
  void valuesThatKubernetesWouldRefuseAreRefusedHere() {
    assertThat(Labels.EMPTY.withVolume("vol_Ab1.x").toMap()).containsEntry("gshare.io/volume-id", "vol_Ab1.x");
    assertThatThrownBy(() -> Labels.EMPTY.withSession("a".repeat(64))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gshare.io/session-id");
    assertThatThrownBy(() -> Labels.EMPTY.withUser("usr/1")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Labels.EMPTY.withUser("usr_")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Labels.EMPTY.withUser(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void nodeLabelsAreReadAsTheBootstrapWritesThem() {
    assertThat(LabelKeys.checkpointReady(Map.of("gshare.io/criu", "ready", "gshare.io/cuda-checkpoint", "ready"))).isTrue();
    assertThat(LabelKeys.checkpointReady(Map.of("gshare.io/criu", "ready"))).isFalse();
    assertThat(LabelKeys.checkpointReady(null)).isFalse();
    assertThat(LabelKeys.simulated(Map.of("gshare.io/simulated", "true"))).isTrue();
    assertThat(LabelKeys.simulated(Map.of("gshare.io/simulated", "false"))).isFalse();
    assertThat(LabelKeys.simulated(null)).isFalse();
    assertThat(LabelKeys.GPU_MODE).isEqualTo("gshare.io/gpu-mode");
    assertThat(LabelKeys.ROLE + "=" + LabelKeys.ROLE_STORAGE).isEqualTo("gshare.io/role=storage");
    assertThat(LabelKeys.HAMI_DEVICE_PLUGIN).isEqualTo(Map.of("app.kubernetes.io/component", "hami-device-plugin"));
    assertThat(LabelKeys.INGRESS_NGINX_CONTROLLER)
        .isEqualTo(Map.of("app.kubernetes.io/name", "ingress-nginx", "app.kubernetes.io/component", "controller"));
  }
}
