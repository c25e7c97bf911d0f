package io.gshare.activities.cluster.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.gshare.workflows.kube.LabelKeys;
import io.gshare.workflows.session.CheckpointImage;
import io.gshare.workflows.session.GpuPlacement;
import io.gshare.workflows.session.SessionPod;
import io.gshare.workflows.session.SessionVolume;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionObjectsTest {

  private static final GpuPlacement PLACEMENT = new GpuPlacement("clu_1", "nod_1", "gpu-1", "exclusive",
      "NVIDIA H100 80GB HBM3", List.of("GPU-a"), null, null, false);
  private static final SessionVolume VOLUME = new SessionVolume("vol_Ab1", SessionVolume.claimNameOf("vol_Ab1"),
      "gshare-data", 50, SessionVolume.MOUNT_PATH);

  private static SessionPod session(SessionVolume volume) {
    return new SessionPod("ses_k2j8", "usr_1", PLACEMENT, "registry.example.com/jupyter:1", 8888, "/",
        "gshare.lab.example.com", "https://gshare.example.com/internal/connect/verify", null, volume);
  }

  @Test
  void aSessionWithAVolumeMountsItsClaimWritableForTheNotebookUser() {
    Pod pod = SessionObjects.pod(session(VOLUME));

    assertThat(pod.getSpec().getVolumes()).singleElement().satisfies(v ->
        assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo("gshare-vol-ab1"));
    var container = pod.getSpec().getContainers().get(0);
    assertThat(container.getVolumeMounts()).singleElement().satisfies(m -> {
      assertThat(m.getName()).isEqualTo(pod.getSpec().getVolumes().get(0).getName());
      assertThat(m.getMountPath()).isEqualTo("/home/jovyan/work");
    });
    assertThat(container.getEnv()).anySatisfy(e -> {
      assertThat(e.getName()).isEqualTo("GSHARE_VOLUME_PATH");
      assertThat(e.getValue()).isEqualTo("/home/jovyan/work");
    });
    assertThat(pod.getSpec().getSecurityContext().getFsGroup()).isEqualTo(100L);
  }

  @Test
  void aLosslessResumeRunsTheCheckpointImageAndTheBuilderRunsOnTheCheckpointedNode() {
    SessionPod restored = new SessionPod("ses_k2j8", "usr_1", PLACEMENT, "registry.example.com/jupyter:1", 8888, "/",
        "gshare.lab.example.com", "https://gshare.example.com/internal/connect/verify",
        "10.10.0.191:5000/gshare-checkpoints/gshare-ses-k2j8:ckpt-1", null);
    Pod pod = SessionObjects.pod(restored);
    assertThat(pod.getSpec().getContainers().get(0).getImage()).isEqualTo("10.10.0.191:5000/gshare-checkpoints/gshare-ses-k2j8:ckpt-1");
    assertThat(pod.getMetadata().getAnnotations()).containsEntry("gshare.io/image", "registry.example.com/jupyter:1");

    Pod builder = SessionObjects.checkpointBuilder(new CheckpointImage("ses_k2j8", "gpu-1",
        "/var/lib/kubelet/checkpoints/checkpoint-x.tar", "10.10.0.191:5000/gshare-checkpoints/gshare-ses-k2j8:ckpt-1",
        "registry.example.com/tools/buildah:1"));
    assertThat(builder.getMetadata().getName()).isEqualTo("gshare-ckpt-ses-k2j8");
    assertThat(builder.getMetadata().getLabels()).doesNotContainKey(LabelKeys.SESSION_ID)
        .containsEntry(LabelKeys.CHECKPOINT_OF, "ses_k2j8");
    assertThat(builder.getSpec().getNodeName()).isEqualTo("gpu-1");
    assertThat(builder.getSpec().getRestartPolicy()).isEqualTo("Never");
    assertThat(builder.getSpec().getVolumes()).singleElement().satisfies(v ->
        assertThat(v.getHostPath().getPath()).isEqualTo("/var/lib/kubelet/checkpoints"));
    var build = builder.getSpec().getContainers().get(0);
    assertThat(build.getCommand()).last().asString().contains("buildah push").contains("checkpoint.name=$CONTAINER");
    assertThat(build.getEnv()).anySatisfy(e -> {
      assertThat(e.getName()).isEqualTo("IMAGE");
      assertThat(e.getValue()).endsWith(":ckpt-1");
    });
    assertThat(build.getEnv()).as("the checkpoint names the session's container").anySatisfy(e -> {
      assertThat(e.getName()).isEqualTo("CONTAINER");
      assertThat(e.getValue()).isEqualTo(pod.getSpec().getContainers().get(0).getName());
    });
  }

  @Test
  void aSessionWithoutAVolumeMountsNothing() {
    Pod pod = SessionObjects.pod(session(null));

    assertThat(pod.getSpec().getVolumes()).isNullOrEmpty();
    assertThat(pod.getSpec().getContainers().get(0).getVolumeMounts()).isNullOrEmpty();
    assertThat(pod.getSpec().getSecurityContext()).isNull();
  }

  @Test
  void theClaimIsSizedToTheVolumeInItsPoolsClassAndNamedTheSameEverywhere() {
    PersistentVolumeClaim claim = SessionObjects.claim(VOLUME);

    assertThat(claim.getMetadata().getName()).isEqualTo(SessionVolume.claimNameOf("vol_Ab1"));
    assertThat(claim.getMetadata().getNamespace()).isEqualTo(SessionObjects.NAMESPACE);
    assertThat(claim.getMetadata().getLabels()).containsEntry(LabelKeys.VOLUME_ID, "vol_Ab1");
    assertThat(claim.getSpec().getAccessModes()).containsExactly("ReadWriteOnce");
    assertThat(claim.getSpec().getStorageClassName()).isEqualTo("gshare-data");
    assertThat(claim.getSpec().getResources().getRequests().get("storage").toString()).isEqualTo("50Gi");
    assertThat(SessionObjects.claim(new SessionVolume("vol_2", "gshare-vol-2", null, 1, SessionVolume.MOUNT_PATH))
        .getSpec().getStorageClassName()).as("no pool: the cluster's default StorageClass").isNull();
  }
}
