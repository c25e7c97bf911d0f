package io.gshare.sim;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimCondition;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimConditionBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimList;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimStatus;
import io.fabric8.kubernetes.api.model.PersistentVolumeList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassList;
import io.gshare.workflows.kube.LabelKeys;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plays the control plane's storage controllers and the CSI driver behind every StorageClass, on the
 * kubelet simulator's tick (and right after a claim is deleted):
 *
 * <ul>
 *   <li><b>Provisioning</b> (external-provisioner + PV controller): a Pending claim of an existing class
 *       gets a PersistentVolume {@code pvc-<claim uid>} (capacity = the request, the claim's access modes
 *       and volume mode, the class's reclaim policy, {@code claimRef}, a CSI source of the class's
 *       provisioner) and is bound: {@code spec.volumeName}, {@code status.phase: Bound},
 *       {@code status.capacity}, {@code status.accessModes}. Under {@code WaitForFirstConsumer} this waits
 *       for a scheduled pod that mounts the claim. A claim whose class does not exist stays Pending with
 *       a {@code ProvisioningFailed} Warning event; a claim without a class gets the default class, when
 *       there is one (retroactive default assignment); a claim of class {@code ""} stays Pending.
 *   <li><b>Expansion</b> (external-resizer, a driver that needs no node expansion): when a bound claim
 *       requests more than {@code status.capacity}, one tick grows the volume
 *       ({@code spec.capacity}) and marks the claim {@code Resizing} with
 *       {@code status.allocatedResources}; the next sets {@code status.capacity} and clears the condition.
 *   <li><b>Protection</b> (pvc-protection controller): a deleted claim keeps its
 *       {@code kubernetes.io/pvc-protection} finalizer while a scheduled pod of its namespace mounts it;
 *       then the finalizer is removed and the claim goes.
 *   <li><b>Reclaim</b>: a volume whose claim is gone is deleted (reclaim policy Delete) or marked
 *       {@code Released} (Retain). A bound claim whose volume is gone turns {@code Lost}.
 * </ul>
 *
 * <p>It also answers the storage half of the kubelet's stats summary (volume usage per pod), with the
 * bytes in use that tests set per claim.
 */
final class StorageController {

  private static final Logger log = LoggerFactory.getLogger(StorageController.class);

  private static final String CLAIMS = "/api/v1/persistentvolumeclaims";
  private static final String VOLUMES = "/api/v1/persistentvolumes";

  private final ObjectStore store;
  private final Clock clock;
  /**
   * Bytes in use per claim ({@code namespace/name}), as tests set them, with the uid of the claim they
   * were set for (a claim created anew under the same name starts empty) and when; 0 when unset.
   */
  private final Map<String, Usage> usedBytes = new ConcurrentHashMap<>();

  private record Usage(String uid, long bytes, long setAt) {}
  /** {@code uid/reason...} of the events already written, so each is written once. */
  private final Set<String> reported = ConcurrentHashMap.newKeySet();
  private final AtomicLong eventSequence = new AtomicLong();

  StorageController(ObjectStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  /**
   * The default StorageClass: of the classes annotated {@code is-default-class: "true"}, the newest
   * (as the apiserver picks since Kubernetes 1.26), or null.
   */
  static StorageClass defaultClass(Collection<StorageClass> classes) {
    return classes.stream()
        .filter(c -> c.getMetadata().getAnnotations() != null
            && ("true".equals(c.getMetadata().getAnnotations().get(StorageKeys.DEFAULT_CLASS))
                || "true".equals(c.getMetadata().getAnnotations().get(StorageKeys.BETA_DEFAULT_CLASS))))
        .max(Comparator.comparing((StorageClass c) -> Objects.toString(c.getMetadata().getCreationTimestamp(), ""))
            .thenComparing(c -> c.getMetadata().getName(), Comparator.reverseOrder()))
        .orElse(null);
  }

  /** One pass over every claim and volume. */
  synchronized void reconcile() {
    Instant now = clock.instant();
    long listedAt = System.nanoTime();
    Map<String, StorageClass> classes = store.list("/apis/storage.k8s.io/v1/storageclasses", StorageClassList.class)
        .getItems().stream().collect(Collectors.toMap(c -> c.getMetadata().getName(), c -> c, (a, b) -> a));
    StorageClass fallback = defaultClass(classes.values());
    List<Pod> pods = store.list("/api/v1/pods", PodList.class).getItems();
    List<PersistentVolumeClaim> claims = store.list(CLAIMS, PersistentVolumeClaimList.class).getItems();
    Map<String, PersistentVolume> volumes = store.list(VOLUMES, PersistentVolumeList.class).getItems().stream()
        .collect(Collectors.toMap(v -> v.getMetadata().getName(), v -> v, (a, b) -> a));

    Map<String, PersistentVolumeClaim> remaining = new HashMap<>();
    for (PersistentVolumeClaim claim : claims) {
      try {
        if (!step(claim, classes, fallback, pods, volumes, now)) {
          remaining.put(key(claim), claim);
        }
      } catch (RuntimeException e) {
        remaining.put(key(claim), claim);
        log.warn("storage simulator could not advance claim {}: {}", key(claim), e.toString());
      }
    }
    for (PersistentVolume volume : volumes.values()) {
      try {
        reclaim(volume, remaining);
      } catch (RuntimeException e) {
        log.warn("storage simulator could not reclaim volume {}: {}", volume.getMetadata().getName(), e.toString());
      }
    }
    Set<String> uids = remaining.values().stream().map(c -> c.getMetadata().getUid()).collect(Collectors.toSet());
    // what was set before this pass listed the claims, for a claim the pass did not find, is for a claim gone
    usedBytes.values().removeIf(u -> u.setAt() - listedAt < 0 && !uids.contains(u.uid()));
    reported.removeIf(k -> !uids.contains(k.substring(0, k.indexOf('/'))));
  }

  /** Advances one claim; true when the claim is gone afterwards. */
  private boolean step(PersistentVolumeClaim claim, Map<String, StorageClass> classes, StorageClass fallback,
      List<Pod> pods, Map<String, PersistentVolume> volumes, Instant now) {
    String namespace = claim.getMetadata().getNamespace();
    String name = claim.getMetadata().getName();
    String path = "/api/v1/namespaces/" + namespace + "/persistentvolumeclaims/" + name;
    if (claim.getMetadata().getDeletionTimestamp() != null) {
      List<String> finalizers = claim.getMetadata().getFinalizers();
      if (finalizers != null && finalizers.contains(StorageKeys.PVC_PROTECTION) && !mounted(namespace, name, pods)) {
        if (updateClaim(path, c -> c.getMetadata().getFinalizers().remove(StorageKeys.PVC_PROTECTION))) {
          log.info("claim {}/{} is no longer in use: its deletion completes", namespace, name);
          return finalizers.size() == 1;
        }
      }
      return false;
    }
    String phase = claim.getStatus() == null ? null : claim.getStatus().getPhase();
    String volumeName = claim.getSpec().getVolumeName();
    if (volumeName != null && !volumeName.isEmpty()) {
      PersistentVolume volume = volumes.get(volumeName);
      if (volume == null) {
        if ("Bound".equals(phase)) {
          updateStatus(path, status -> status.setPhase("Lost"));
          event(claim, "Warning", "ClaimLost", "Bound claim has lost its PersistentVolume. Data on the volume is lost!",
              "persistentvolume-controller", now);
        }
        return false;
      }
      if (!"Bound".equals(phase) && !"Lost".equals(phase)) {
        bindStatus(path, volume);
      } else if ("Bound".equals(phase)) {
        expand(claim, volume, path, classes.get(claim.getSpec().getStorageClassName()), now);
      }
      return false;
    }
    String className = claim.getSpec().getStorageClassName();
    if (className == null) {
      if (fallback != null) {
        updateClaim(path, c -> c.getSpec().setStorageClassName(fallback.getMetadata().getName()));
      }
      return false;
    }
    if (className.isEmpty()) {
      return false; // no class: only a pre-provisioned volume could bind it, which the simulator does not do
    }
    StorageClass storageClass = classes.get(className);
    if (storageClass == null) {
      event(claim, "Warning", "ProvisioningFailed", "storageclass.storage.k8s.io \"" + className + "\" not found",
          "persistentvolume-controller", now);
      return false;
    }
    if ("WaitForFirstConsumer".equals(storageClass.getVolumeBindingMode()) && !mounted(namespace, name, pods)) {
      event(claim, "Normal", "WaitForFirstConsumer", "waiting for first consumer to be created before binding",
          "persistentvolume-controller", now);
      return false;
    }
    provision(claim, storageClass, path, volumes, now);
    return false;
  }

  private void provision(PersistentVolumeClaim claim, StorageClass storageClass, String path,
      Map<String, PersistentVolume> volumes, Instant now) {
    String uid = claim.getMetadata().getUid();
    String volumeName = "pvc-" + uid;
    String provisioner = storageClass.getProvisioner();
    PersistentVolume volume = volumes.get(volumeName);
    if (volume == null) {
      volume = new PersistentVolumeBuilder()
          .withNewMetadata()
          .withName(volumeName)
          .addToAnnotations(StorageKeys.PROVISIONED_BY, provisioner)
          .addToLabels(LabelKeys.SIMULATED, LabelKeys.TRUE)
          .endMetadata()
          .withNewSpec()
          .addToCapacity("storage", claim.getSpec().getResources().getRequests().get("storage"))
          .withAccessModes(claim.getSpec().getAccessModes())
          .withVolumeMode(claim.getSpec().getVolumeMode() == null ? "Filesystem" : claim.getSpec().getVolumeMode())
          .withPersistentVolumeReclaimPolicy(
              storageClass.getReclaimPolicy() == null ? "Delete" : storageClass.getReclaimPolicy())
          .withStorageClassName(storageClass.getMetadata().getName())
          .withNewClaimRef()
          .withKind("PersistentVolumeClaim")
          .withApiVersion("v1")
          .withNamespace(claim.getMetadata().getNamespace())
          .withName(claim.getMetadata().getName())
          .withUid(uid)
          .withResourceVersion(claim.getMetadata().getResourceVersion())
          .endClaimRef()
          .withNewCsi()
          .withDriver(provisioner)
          .withVolumeHandle(volumeName)
          .endCsi()
          .endSpec()
          .withNewStatus()
          .withPhase("Bound")
          .withLastPhaseTransitionTime(now.toString())
          .endStatus()
          .build();
      store.create(VOLUMES, volume);
      event(claim, "Normal", "ProvisioningSucceeded", "Successfully provisioned volume " + volumeName, provisioner, now);
    }
    boolean named = updateClaim(path, c -> {
      c.getSpec().setVolumeName(volumeName);
      Map<String, String> annotations = c.getMetadata().getAnnotations() == null
          ? new LinkedHashMap<>() : new LinkedHashMap<>(c.getMetadata().getAnnotations());
      annotations.put(StorageKeys.BIND_COMPLETED, "yes");
      annotations.put(StorageKeys.BOUND_BY_CONTROLLER, "yes");
      annotations.put(StorageKeys.STORAGE_PROVISIONER, provisioner);
      annotations.put(StorageKeys.BETA_STORAGE_PROVISIONER, provisioner);
      c.getMetadata().setAnnotations(annotations);
    });
    if (named) {
      bindStatus(path, volume);
      log.info("claim {} bound to simulated volume {} ({})", key(claim), volumeName, provisioner);
    }
  }

  private void bindStatus(String path, PersistentVolume volume) {
    updateStatus(path, status -> {
      status.setPhase("Bound");
      status.setAccessModes(volume.getSpec().getAccessModes());
      Map<String, Quantity> capacity = new LinkedHashMap<>();
      capacity.put("storage", volume.getSpec().getCapacity().get("storage"));
      status.setCapacity(capacity);
    });
  }

  private void expand(PersistentVolumeClaim claim, PersistentVolume volume, String path, StorageClass storageClass,
      Instant now) {
    Quantity wanted = claim.getSpec().getResources().getRequests().get("storage");
    PersistentVolumeClaimStatus status = claim.getStatus();
    BigDecimal want = bytes(wanted);
    BigDecimal have = status.getCapacity() == null ? null : bytes(status.getCapacity().get("storage"));
    if (want == null || have == null || want.compareTo(have) <= 0) {
      return;
    }
    BigDecimal volumeSize = volume.getSpec().getCapacity() == null ? null : bytes(volume.getSpec().getCapacity().get("storage"));
    if (volumeSize == null || volumeSize.compareTo(want) < 0) {
      updateVolume(volume.getMetadata().getName(), v -> v.getSpec().getCapacity().put("storage", wanted));
    }
    BigDecimal allocated = status.getAllocatedResources() == null ? null : bytes(status.getAllocatedResources().get("storage"));
    if (allocated == null || allocated.compareTo(want) < 0) {
      updateStatus(path, s -> {
        Map<String, Quantity> allocatedResources = new LinkedHashMap<>();
        allocatedResources.put("storage", wanted);
        s.setAllocatedResources(allocatedResources);
        Map<String, String> resizeStatus = new LinkedHashMap<>();
        resizeStatus.put("storage", "ControllerResizeInProgress");
        s.setAllocatedResourceStatuses(resizeStatus);
        List<PersistentVolumeClaimCondition> conditions = withoutResizing(s.getConditions());
        conditions.add(new PersistentVolumeClaimConditionBuilder().withType(StorageKeys.RESIZING).withStatus("True")
            .withLastTransitionTime(now.toString()).build());
        s.setConditions(conditions);
      });
      return;
    }
    boolean grown = updateStatus(path, s -> {
      Map<String, Quantity> capacity = s.getCapacity() == null ? new LinkedHashMap<>() : new LinkedHashMap<>(s.getCapacity());
      capacity.put("storage", wanted);
      s.setCapacity(capacity);
      s.setConditions(withoutResizing(s.getConditions()));
      s.setAllocatedResourceStatuses(null);
    });
    if (grown) {
      String provisioner = storageClass == null ? "csi" : storageClass.getProvisioner();
      event(claim, "Normal", "VolumeResizeSuccessful", "ExpandVolume succeeded for volume \"" + key(claim) + "\"",
          "external-resizer " + provisioner, now, wanted.toString());
      log.info("claim {} expanded to {}", key(claim), wanted);
    }
  }

  private static List<PersistentVolumeClaimCondition> withoutResizing(List<PersistentVolumeClaimCondition> conditions) {
    List<PersistentVolumeClaimCondition> kept = new ArrayList<>();
    if (conditions != null) {
      conditions.stream().filter(c -> !StorageKeys.RESIZING.equals(c.getType())).forEach(kept::add);
    }
    return kept;
  }

  private void reclaim(PersistentVolume volume, Map<String, PersistentVolumeClaim> claims) {
    var ref = volume.getSpec().getClaimRef();
    if (ref == null || ref.getName() == null) {
      return;
    }
    PersistentVolumeClaim claim = claims.get(ref.getNamespace() + "/" + ref.getName());
    boolean gone = claim == null || ref.getUid() != null && !ref.getUid().equals(claim.getMetadata().getUid());
    if (!gone) {
      return;
    }
    String name = volume.getMetadata().getName();
    if ("Delete".equals(volume.getSpec().getPersistentVolumeReclaimPolicy())) {
      store.delete(VOLUMES + "/" + name);
      log.info("deleted simulated volume {}: its claim {}/{} is gone", name, ref.getNamespace(), ref.getName());
    } else if (volume.getStatus() == null || !"Released".equals(volume.getStatus().getPhase())) {
      PersistentVolume current = store.get(VOLUMES + "/" + name, PersistentVolume.class);
      if (current != null) {
        current.setStatus(new io.fabric8.kubernetes.api.model.PersistentVolumeStatusBuilder().withPhase("Released")
            .withLastPhaseTransitionTime(clock.instant().toString()).build());
        store.replace(VOLUMES + "/" + name + "/status", current);
      }
    }
  }

  /** Whether a pod of the namespace bound to a node mounts the claim (what the pvc-protection controller asks). */
  private static boolean mounted(String namespace, String claim, List<Pod> pods) {
    return pods.stream().anyMatch(p -> namespace.equals(p.getMetadata().getNamespace())
        && p.getSpec().getNodeName() != null && !p.getSpec().getNodeName().isEmpty()
        && claims(p).contains(claim));
  }

  private static Set<String> claims(Pod pod) {
    Set<String> names = new HashSet<>();
    if (pod.getSpec().getVolumes() != null) {
      for (Volume v : pod.getSpec().getVolumes()) {
        if (v.getPersistentVolumeClaim() != null && v.getPersistentVolumeClaim().getClaimName() != null) {
          names.add(v.getPersistentVolumeClaim().getClaimName());
        }
      }
    }
    return names;
  }

  // --- the kubelet's volume stats -----------------------------------------------------------------

  /** False when the claim does not exist. */
  boolean setUsedBytes(String namespace, String claim, long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("used bytes must be >= 0, got " + bytes);
    }
    PersistentVolumeClaim current =
        store.get("/api/v1/namespaces/" + namespace + "/persistentvolumeclaims/" + claim, PersistentVolumeClaim.class);
    if (current == null) {
      return false;
    }
    usedBytes.put(namespace + "/" + claim, new Usage(current.getMetadata().getUid(), bytes, System.nanoTime()));
    return true;
  }

  /** What was set for the claim of that name (whichever claim of that name it was set for). */
  long usedBytes(String namespace, String claim) {
    Usage usage = usedBytes.get(namespace + "/" + claim);
    return usage == null ? 0 : usage.bytes();
  }

  private long usedBytes(PersistentVolumeClaim claim) {
    Usage usage = usedBytes.get(key(claim));
    return usage == null || !usage.uid().equals(claim.getMetadata().getUid()) ? 0 : usage.bytes();
  }

  /**
   * The kubelet Summary API ({@code /stats/summary}) of a node, reduced to the node's name and, for each
   * Running pod bound to it, its reference and the stats of its PersistentVolumeClaim volumes whose
   * claim is bound; empty when the node does not exist.
   */
  Optional<Map<String, Object>> summary(String nodeName) {
    Node node = store.get("/api/v1/nodes/" + nodeName, Node.class);
    if (node == null) {
      return Optional.empty();
    }
    String now = clock.instant().toString();
    Map<String, PersistentVolumeClaim> claims = store.list(CLAIMS, PersistentVolumeClaimList.class).getItems().stream()
        .collect(Collectors.toMap(StorageController::key, c -> c, (a, b) -> a));
    List<Map<String, Object>> pods = new ArrayList<>();
    for (Pod pod : store.list("/api/v1/pods", PodList.class).getItems()) {
      if (!nodeName.equals(pod.getSpec().getNodeName()) || pod.getStatus() == null
          || !"Running".equals(pod.getStatus().getPhase())) {
        continue;
      }
      String namespace = pod.getMetadata().getNamespace();
      List<Map<String, Object>> volumes = new ArrayList<>();
      for (Volume v : pod.getSpec().getVolumes() == null ? List.<Volume>of() : pod.getSpec().getVolumes()) {
        if (v.getPersistentVolumeClaim() == null) {
          continue;
        }
        String claimName = v.getPersistentVolumeClaim().getClaimName();
        PersistentVolumeClaim claim = claims.get(namespace + "/" + claimName);
        BigDecimal capacity = claim == null || claim.getStatus() == null || claim.getStatus().getCapacity() == null
            ? null : bytes(claim.getStatus().getCapacity().get("storage"));
        if (capacity == null || !"Bound".equals(claim.getStatus().getPhase())) {
          continue; // the kubelet reports mounted volumes only
        }
        long capacityBytes = capacity.longValue();
        long used = usedBytes(claim);
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("time", now);
        stats.put("availableBytes", Math.max(0, capacityBytes - used));
        stats.put("capacityBytes", capacityBytes);
        stats.put("usedBytes", used);
        stats.put("name", v.getName());
        stats.put("pvcRef", Map.of("name", claimName, "namespace", namespace));
        volumes.add(stats);
      }
      Map<String, Object> entry = new LinkedHashMap<>();
      Map<String, Object> ref = new LinkedHashMap<>();
      ref.put("name", pod.getMetadata().getName());
      ref.put("namespace", namespace);
      ref.put("uid", pod.getMetadata().getUid());
      entry.put("podRef", ref);
      if (pod.getStatus().getStartTime() != null) {
        entry.put("startTime", pod.getStatus().getStartTime());
      }
      if (!volumes.isEmpty()) {
        entry.put("volume", volumes);
      }
      pods.add(entry);
    }
    Map<String, Object> nodeStats = new LinkedHashMap<>();
    nodeStats.put("nodeName", nodeName);
    if (node.getMetadata().getCreationTimestamp() != null) {
      nodeStats.put("startTime", node.getMetadata().getCreationTimestamp());
    }
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("node", nodeStats);
    summary.put("pods", pods);
    return Optional.of(summary);
  }

  // --- writes ---------------------------------------------------------------------------------------

  /** Reads the claim afresh, changes it and writes it back; false when it is gone or the write conflicted. */
  private boolean updateClaim(String path, Consumer<PersistentVolumeClaim> change) {
    PersistentVolumeClaim current = store.get(path, PersistentVolumeClaim.class);
    if (current == null) {
      return false;
    }
    change.accept(current);
    return store.replace(path, current) < 300;
  }

  private boolean updateStatus(String path, Consumer<PersistentVolumeClaimStatus> change) {
    PersistentVolumeClaim current = store.get(path, PersistentVolumeClaim.class);
    if (current == null) {
      return false;
    }
    if (current.getStatus() == null) {
      current.setStatus(new PersistentVolumeClaimStatus());
    }
    change.accept(current.getStatus());
    return store.replace(path + "/status", current) < 300;
  }

  private void updateVolume(String name, Consumer<PersistentVolume> change) {
    PersistentVolume current = store.get(VOLUMES + "/" + name, PersistentVolume.class);
    if (current != null) {
      change.accept(current);
      store.replace(VOLUMES + "/" + name, current);
    }
  }

  private void event(PersistentVolumeClaim claim, String type, String reason, String message, String component,
      Instant now, String... distinct) {
    String key = claim.getMetadata().getUid() + "/" + reason + "/" + String.join("/", distinct);
    if (!reported.add(key)) {
      return;
    }
    String namespace = claim.getMetadata().getNamespace();
    store.create("/api/v1/namespaces/" + namespace + "/events", new EventBuilder()
        .withNewMetadata()
        .withName(claim.getMetadata().getName() + "." + Long.toHexString(now.toEpochMilli() * 1000 + eventSequence.incrementAndGet() % 1000))
        .withNamespace(namespace)
        .addToLabels(LabelKeys.SIMULATED, LabelKeys.TRUE)
        .endMetadata()
        .withNewInvolvedObject()
        .withApiVersion("v1")
        .withKind("PersistentVolumeClaim")
        .withNamespace(namespace)
        .withName(claim.getMetadata().getName())
        .withUid(claim.getMetadata().getUid())
        .withResourceVersion(claim.getMetadata().getResourceVersion())
        .endInvolvedObject()
        .withType(type)
        .withReason(reason)
        .withMessage(message)
        .withCount(1)
        .withFirstTimestamp(now.toString())
        .withLastTimestamp(now.toString())
        .withNewSource().withComponent(component).endSource()
        .build());
  }

  private static BigDecimal bytes(Quantity quantity) {
    if (quantity == null) {
      return null;
    }
    try {
      return Quantity.getAmountInBytes(quantity);
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static String key(PersistentVolumeClaim claim) {
    return claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName();
  }
}
