package io.gshare.clusterworker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.CSIStorageCapacity;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gshare.activities.cluster.model.SessionObjects;
import io.gshare.contract.internal.InternalPaths;
import io.gshare.contract.internal.VolumeSync;
import io.gshare.contract.internal.VolumeSyncAnswer;
import io.gshare.workflows.kube.LabelKeys;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every volume sync interval: every claim of a gShare volume (phase, requested and real capacity, the
 * bytes used from the kubelet's stats summary while a pod mounts it), every StorageClass with its CSI
 * capacity, and the storage node's disk, in one batch; then applies the answer (resize approved
 * expansions, delete claims of reclaimed volumes), so the worker needs no other endpoint.
 */
final class VolumeSyncReporter {

  private static final Logger log = LoggerFactory.getLogger(VolumeSyncReporter.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubernetesClient kubernetes;
  private final ControlPlaneClient controlPlane;

  VolumeSyncReporter(KubernetesClient kubernetes, ControlPlaneClient controlPlane) {
    this.kubernetes = kubernetes;
    this.controlPlane = controlPlane;
  }

  void tick() throws Exception {
    VolumeSyncAnswer answer = controlPlane.exchange(InternalPaths.VOLUMES_SYNC, sync(kubernetes), VolumeSyncAnswer.class);
    apply(kubernetes, answer);
  }

  static VolumeSync sync(KubernetesClient kubernetes) {
    List<PersistentVolumeClaim> claims = kubernetes.persistentVolumeClaims().inNamespace(SessionObjects.NAMESPACE)
        .withLabel(LabelKeys.VOLUME_ID).list().getItems();
    Map<String, Long> used = usedBytes(kubernetes, claims);
    List<VolumeSync.VolumeState> volumes = claims.stream().map(c -> new VolumeSync.VolumeState(
        c.getMetadata().getLabels().get(LabelKeys.VOLUME_ID), c.getMetadata().getName(),
        c.getMetadata().getDeletionTimestamp() != null ? VolumeSync.VolumeState.TERMINATING
            : c.getStatus() == null ? null : c.getStatus().getPhase(),
        bytes(c.getStatus() == null || c.getStatus().getCapacity() == null ? null : c.getStatus().getCapacity().get("storage")),
        used.get(c.getMetadata().getName()),
        bytes(c.getSpec().getResources() == null || c.getSpec().getResources().getRequests() == null ? null
            : c.getSpec().getResources().getRequests().get("storage"))))
        .toList();
    Map<String, Long> csi = new HashMap<>();
    for (CSIStorageCapacity capacity : kubernetes.storage().v1().csiStorageCapacities().inAnyNamespace().list().getItems()) {
      Long value = bytes(capacity.getCapacity());
      if (value != null && capacity.getStorageClassName() != null) {
        csi.merge(capacity.getStorageClassName(), value, Long::sum);
      }
    }
    List<VolumeSync.StorageClassState> classes = kubernetes.storage().v1().storageClasses().list().getItems().stream()
        .map((StorageClass sc) -> new VolumeSync.StorageClassState(sc.getMetadata().getName(),
            Boolean.TRUE.equals(sc.getAllowVolumeExpansion()), csi.get(sc.getMetadata().getName())))
        .toList();
    Long disk = kubernetes.nodes().withLabel(LabelKeys.ROLE, LabelKeys.ROLE_STORAGE).list().getItems().stream()
        .map(n -> n.getStatus() == null || n.getStatus().getCapacity() == null ? null
            : bytes(n.getStatus().getCapacity().get("ephemeral-storage")))
        .filter(Objects::nonNull).findFirst().orElse(null);
    return new VolumeSync(volumes, classes, disk);
  }

  /**
   * The bytes used per mounted claim, from the kubelet's stats summary of each node that runs a pod
   * mounting one (through the apiserver's node proxy). A node that does not answer leaves its claims
   * without a figure, and the control plane keeps the last one.
   */
  static Map<String, Long> usedBytes(KubernetesClient kubernetes, List<PersistentVolumeClaim> claims) {
    Set<String> names = new HashSet<>();
    claims.forEach(c -> names.add(c.getMetadata().getName()));
    Set<String> nodes = new TreeSet<>();
    for (Pod pod : kubernetes.pods().inNamespace(SessionObjects.NAMESPACE).list().getItems()) {
      if (pod.getSpec() != null && pod.getSpec().getNodeName() != null && pod.getSpec().getVolumes() != null
          && pod.getSpec().getVolumes().stream().anyMatch(v -> v.getPersistentVolumeClaim() != null
              && names.contains(v.getPersistentVolumeClaim().getClaimName()))) {
        nodes.add(pod.getSpec().getNodeName());
      }
    }
    Map<String, Long> used = new HashMap<>();
    for (String node : nodes) {
      try {
        String summary = kubernetes.raw(kubernetes.getConfiguration().getMasterUrl().replaceAll("/$", "")
            + "/api/v1/nodes/" + node + "/proxy/stats/summary");
        if (summary == null) {
          continue;
        }
        for (JsonNode pod : JSON.readTree(summary).path("pods")) {
          if (!SessionObjects.NAMESPACE.equals(pod.path("podRef").path("namespace").asText())) {
            continue;
          }
          for (JsonNode volume : pod.path("volume")) {
            String claim = volume.path("pvcRef").path("name").asText(null);
            if (claim != null && names.contains(claim) && volume.hasNonNull("usedBytes")) {
              used.put(claim, volume.get("usedBytes").asLong());
            }
          }
        }
      } catch (Exception e) {
        log.warn("no stats summary from node {}: {}", node, e.toString());
      }
    }
    return used;
  }

  static void apply(KubernetesClient kubernetes, VolumeSyncAnswer answer) {
    for (VolumeSyncAnswer.ClaimResize resize : answer.resize()) {
      try {
        kubernetes.persistentVolumeClaims().inNamespace(SessionObjects.NAMESPACE).withName(resize.pvcName())
            .patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"" + resize.sizeGb() + "Gi\"}}}}");
        log.info("claim {}: expansion to {} GiB requested", resize.pvcName(), resize.sizeGb());
      } catch (RuntimeException e) {
        log.warn("claim {}: could not request {} GiB: {}", resize.pvcName(), resize.sizeGb(), e.getMessage());
      }
    }
    for (String claim : answer.deleteClaims()) {
      kubernetes.persistentVolumeClaims().inNamespace(SessionObjects.NAMESPACE).withName(claim).delete();
      log.info("claim {} of a reclaimed volume deleted", claim);
    }
  }

  private static Long bytes(Quantity quantity) {
    return quantity == null ? null : Quantity.getAmountInBytes(quantity).longValue();
  }
}
