package io.gshare.sim.kube;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.CSIStorageCapacity;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gshare.workflows.kube.LabelKeys;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A SIMULATOR of a CSI driver's controller side as its sidecars drive it, over a real apiserver: the
 * external-provisioner and the external-resizer of a driver that needs no node expansion, for every StorageClass
 * whose provisioner is not an in-tree {@code kubernetes.io/...} one (such as the seed's
 * {@code org.democratic-csi.gshare-nfs}). No CSI driver can run here (no storage server, no gRPC sidecars), so this
 * class answers what they would; the real kube-controller-manager still does everything else: the PV controller marks
 * claims for the provisioner and binds them, the expand controller, pvc-protection and pv-protection run, and the
 * apiserver's admission (DefaultStorageClass, PersistentVolumeClaimResize, StorageObjectInUseProtection) is real.
 *
 * <ul>
 *   <li><b>Provisioning</b>: a Pending claim the PV controller annotated {@value #STORAGE_PROVISIONER} with a served
 *       provisioner (under {@code WaitForFirstConsumer} once the scheduler also set {@value #SELECTED_NODE}) gets a
 *       PersistentVolume {@code pvc-<claim uid>} pre-bound to it ({@code claimRef}), sized as requested, with a CSI
 *       source; the PV controller then binds the claim.
 *   <li><b>Capacity</b>: the driver's pools are the CSIStorageCapacity objects of the class. A volume larger than a
 *       pool's {@code maximumVolumeSize} or its free {@code capacity} is refused as the driver's CreateVolume would
 *       refuse it ({@code OutOfRange}, {@code ResourceExhausted}), which external-provisioner reports as a Warning
 *       event {@code ProvisioningFailed} and retries; the claim stays Pending. As a driver republishes its pool's
 *       free space, the published capacity drops when a volume is provisioned or grown and comes back when it is
 *       deleted. A class without CSIStorageCapacity objects is provisioned unchecked (a driver that does not publish
 *       capacity).
 *   <li><b>Expansion</b>: a bound claim asking for more than {@code status.capacity} is marked {@code Resizing} with
 *       {@code allocatedResources}, its volume's {@code spec.capacity} is raised, then the claim's
 *       {@code status.capacity} is set and the condition cleared, as external-resizer does with
 *       RecoverVolumeExpansionFailure; subject to the pool's capacity too.
 *   <li><b>Reclaim</b>: a volume this driver provisioned that the PV controller marked {@code Released} with reclaim
 *       policy Delete is deleted; a Retain one stays.
 * </ul>
 *
 * <p>It also keeps the bytes in use per claim that tests set, for the kubelet's stats summary another stand-in serves.
 *
 * <p>Simplifications: no topology on volumes (no {@code nodeAffinity}; a refused WaitForFirstConsumer claim is not
 * sent back to the scheduler), no data sources, no secrets, no {@code external-provisioner.volume.kubernetes.io/finalizer}
 * on volumes; a pool's free space counts every volume provisioned from it that is not being deleted.
 */
public final class ClaimProvisionerStandIn implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ClaimProvisionerStandIn.class);

  // Written by the PV controller on a claim it leaves to an external provisioner, and by the scheduler.
  public static final String STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner";
  static final String BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner";
  public static final String SELECTED_NODE = "volume.kubernetes.io/selected-node";
  // Written by external-provisioner on a volume and external-resizer on a claim.
  public static final String PROVISIONED_BY = "pv.kubernetes.io/provisioned-by";
  static final String NODE_EXPANSION_NOT_REQUIRED = "volume.kubernetes.io/node-expansion-not-required";
  static final String PROVISIONER_IDENTITY = "storage.kubernetes.io/csiProvisionerIdentity";
  /** In the volume's CSI attributes (its volume context, which is the driver's own): the pool it was carved from. */
  public static final String POOL_ATTRIBUTE = "gshare.io/simulated-capacity";
  static final String IN_TREE_PREFIX = "kubernetes.io/";
  // external-resizer's claim conditions and resize statuses (k8s.io/api core/v1).
  static final String RESIZING = "Resizing";
  static final List<String> RESIZE_CONDITIONS =
      List.of(RESIZING, "FileSystemResizePending", "ControllerResizeError", "NodeResizeError");
  static final String CONTROLLER_RESIZE_IN_PROGRESS = "ControllerResizeInProgress";
  static final String CONTROLLER_RESIZE_INFEASIBLE = "ControllerResizeInfeasible";

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * What CreateVolume or ControllerExpandVolume answered, as the sidecars print a gRPC status
   * ({@code rpc error: code = ... desc = ...}; the description is this simulated driver's). {@code infeasible} is
   * OutOfRange, which external-resizer does not retry for the same size; ResourceExhausted is retried.
   */
  record Refusal(boolean infeasible, String message) {}

  /** A CSIStorageCapacity object: one pool of the driver, as this pass sees it. */
  private static final class Pool {
    final CSIStorageCapacity object;
    final long published;
    final Long maximumVolumeSize;
    final long size;
    long used;

    Pool(CSIStorageCapacity object, long published, Long maximumVolumeSize, long size, long used) {
      this.object = object;
      this.published = published;
      this.maximumVolumeSize = maximumVolumeSize;
      this.size = size;
      this.used = used;
    }

    long free() {
      return Math.max(0, size - used);
    }

    String key() {
      return object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
    }
  }

  /** A pool's size as the driver knows it, and the free capacity it last published. */
  private record PoolSize(long size, long lastPublished) {}

  /** Bytes in use set for a claim, with the uid of the claim they were set for and when. */
  private record Usage(String uid, long bytes, long setAt) {}

  private final KubernetesClient client;
  private final Clock clock;
  private final String identity;
  private final ScheduledExecutorService loop;
  /** When to pass: the kinds it reads changed, or {@link ChangeTrigger#IDLE_PASS} went by. */
  private final ChangeTrigger changes;
  private final Map<String, PoolSize> poolSizes = new ConcurrentHashMap<>();
  private final Map<String, Usage> usedBytes = new ConcurrentHashMap<>();
  /** {@code uid/reason/message} of the events already written, so that a retry does not repeat one. */
  private final Set<String> reported = ConcurrentHashMap.newKeySet();
  private final AtomicLong eventSequence = new AtomicLong();

  private ClaimProvisionerStandIn(KubernetesClient client, Duration tick, Clock clock) {
    this.client = client;
    this.clock = clock;
    // external-provisioner's identity: <start millis>-<random>-<driver>; here one per stand-in, the driver appended.
    this.identity = clock.millis() + "-" + Math.floorMod(System.nanoTime(), 10_000);
    this.loop = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "gshare-sim-claim-provisioner");
      t.setDaemon(true);
      return t;
    });
    this.changes = new ChangeTrigger()
        .watching(client.storage().v1().storageClasses())
        .watching(client.persistentVolumeClaims().inAnyNamespace())
        .watching(client.persistentVolumes());
    loop.scheduleWithFixedDelay(() -> {
      if (changes.due()) {
        passQuietly();
      }
    }, 0, tick.toMillis(), TimeUnit.MILLISECONDS);
    log.info("claim provisioner stand-in (a simulator of a CSI driver's external-provisioner and external-resizer; no"
        + " CSI driver can run here) serves the StorageClasses whose provisioner is not kubernetes.io/...");
  }

  /** Starts the stand-in; it looks at classes, capacities, claims and volumes every {@code tick}. */
  public static ClaimProvisionerStandIn start(KubernetesClient client, Duration tick) {
    return new ClaimProvisionerStandIn(client, tick, Clock.systemUTC());
  }

  // --- the kubelet's volume stats ------------------------------------------------------------------

  /** Records the bytes in use on a claim's volume; false when the claim does not exist. */
  public boolean setUsedBytes(String namespace, String claim, long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("used bytes must be >= 0, got " + bytes);
    }
    PersistentVolumeClaim current = client.persistentVolumeClaims().inNamespace(namespace).withName(claim).get();
    if (current == null) {
      return false;
    }
    usedBytes.put(namespace + "/" + claim, new Usage(current.getMetadata().getUid(), bytes, System.nanoTime()));
    changes.poke();
    return true;
  }

  /**
   * What was set for the claim of that name; 0 when unset. Forgotten by the first pass that no longer finds the claim
   * it was set for (deleted, or created anew under the same name).
   */
  public long usedBytes(String namespace, String claim) {
    Usage usage = usedBytes.get(namespace + "/" + claim);
    return usage == null ? 0 : usage.bytes();
  }

  // --- the loop ------------------------------------------------------------------------------------

  private void passQuietly() {
    try {
      pass();
    } catch (KubernetesClientException | IllegalStateException e) {
      log.warn("claim provisioner stand-in pass failed: {}", e.toString());
    } catch (RuntimeException e) {
      log.warn("claim provisioner stand-in pass failed", e);
    }
  }

  /** One pass: provision, expand, reclaim, then republish the pools' free capacity. */
  synchronized void pass() {
    long listedAt = System.nanoTime();
    Map<String, StorageClass> classes = new HashMap<>();
    for (StorageClass c : client.storage().v1().storageClasses().list().getItems()) {
      if (served(c.getProvisioner())) {
        classes.put(c.getMetadata().getName(), c);
      }
    }
    List<PersistentVolumeClaim> claims = client.persistentVolumeClaims().inAnyNamespace().list().getItems();
    Map<String, PersistentVolume> volumes = new HashMap<>();
    client.persistentVolumes().list().getItems().forEach(v -> volumes.put(v.getMetadata().getName(), v));
    Map<String, List<Pool>> pools = pools(classes, volumes);

    for (PersistentVolumeClaim claim : claims) {
      try {
        StorageClass storageClass = classes.get(claim.getSpec().getStorageClassName());
        if (storageClass != null && claim.getMetadata().getDeletionTimestamp() == null) {
          if (wantsProvisioning(claim, storageClass)) {
            provision(claim, storageClass, volumes, pools.getOrDefault(storageClass.getMetadata().getName(), List.of()));
          } else if (wantsExpansion(claim)) {
            expand(claim, volumes.get(claim.getSpec().getVolumeName()), pools);
          }
        }
      } catch (KubernetesClientException | IllegalStateException e) {
        log.warn("claim provisioner stand-in could not advance claim {}: {}", key(claim), e.toString());
      }
    }
    for (PersistentVolume volume : volumes.values()) {
      try {
        reclaim(volume, pools);
      } catch (KubernetesClientException e) {
        log.warn("claim provisioner stand-in could not delete volume {}: {}", volume.getMetadata().getName(),
            e.toString());
      }
    }
    pools.values().stream().flatMap(List::stream).forEach(this::publish);
    Set<String> poolKeys = pools.values().stream().flatMap(List::stream).map(Pool::key).collect(Collectors.toSet());
    poolSizes.keySet().retainAll(poolKeys);

    Set<String> uids = claims.stream().map(c -> c.getMetadata().getUid()).collect(Collectors.toSet());
    // What was set before this pass listed the claims, for a claim the pass did not find, is for a claim gone.
    usedBytes.values().removeIf(u -> u.setAt() - listedAt < 0 && !uids.contains(u.uid()));
    reported.removeIf(k -> !uids.contains(k.substring(0, k.indexOf('/'))));
  }

  private static boolean served(String provisioner) {
    return provisioner != null && !provisioner.isEmpty() && !provisioner.startsWith(IN_TREE_PREFIX);
  }

  // --- pools ---------------------------------------------------------------------------------------

  /**
   * The served classes' CSIStorageCapacity objects with what is used of them. The pool's size is learnt from the
   * published free capacity plus what its volumes take, when first seen and whenever someone else changed the
   * published figure (an operator or a test resizing the pool); afterwards it is what this driver republishes from.
   */
  private Map<String, List<Pool>> pools(Map<String, StorageClass> classes, Map<String, PersistentVolume> volumes) {
    Map<String, Long> usedByPool = new HashMap<>();
    for (PersistentVolume volume : volumes.values()) {
      String pool = poolOf(volume);
      if (pool != null && volume.getMetadata().getDeletionTimestamp() == null) {
        usedByPool.merge(pool, bytes(volume.getSpec().getCapacity().get("storage")), Long::sum);
      }
    }
    Map<String, List<Pool>> pools = new HashMap<>();
    for (CSIStorageCapacity capacity : client.storage().v1().csiStorageCapacities().inAnyNamespace().list().getItems()) {
      if (!classes.containsKey(capacity.getStorageClassName()) || capacity.getCapacity() == null) {
        continue;
      }
      String key = capacity.getMetadata().getNamespace() + "/" + capacity.getMetadata().getName();
      long published = bytes(capacity.getCapacity());
      long used = usedByPool.getOrDefault(key, 0L);
      PoolSize known = poolSizes.get(key);
      if (known == null || known.lastPublished() != published) {
        known = new PoolSize(published + used, published);
        poolSizes.put(key, known);
      }
      Long maximum = capacity.getMaximumVolumeSize() == null ? null : bytes(capacity.getMaximumVolumeSize());
      pools.computeIfAbsent(capacity.getStorageClassName(), k -> new ArrayList<>())
          .add(new Pool(capacity, published, maximum, known.size(), used));
    }
    return pools;
  }

  /** The pool a volume of this driver was carved from; null for one provisioned without capacity tracking. */
  private static String poolOf(PersistentVolume volume) {
    if (volume.getSpec().getCsi() == null || volume.getSpec().getCsi().getVolumeAttributes() == null
        || volume.getSpec().getCapacity() == null || volume.getSpec().getCapacity().get("storage") == null) {
      return null;
    }
    return volume.getSpec().getCsi().getVolumeAttributes().get(POOL_ATTRIBUTE);
  }

  /** Republishes a pool's free capacity when it changed; a conflict leaves it to the next pass. */
  private void publish(Pool pool) {
    long free = pool.free();
    if (free == pool.published) {
      return;
    }
    Map<String, Object> patch = new LinkedHashMap<>();
    patch.put("metadata", Map.of("resourceVersion", pool.object.getMetadata().getResourceVersion()));
    patch.put("capacity", quantity(free));
    try {
      client.storage().v1().csiStorageCapacities().inNamespace(pool.object.getMetadata().getNamespace())
          .withName(pool.object.getMetadata().getName()).patch(PatchContext.of(PatchType.JSON_MERGE), json(patch));
      poolSizes.put(pool.key(), new PoolSize(pool.size, free));
      log.info("claim provisioner stand-in republished {}: {} free of {}", pool.key(), quantity(free),
          quantity(pool.size));
    } catch (KubernetesClientException e) {
      log.warn("claim provisioner stand-in could not republish {}: {}", pool.key(), e.toString());
    }
  }

  /**
   * The pool with the most free space that takes {@code bytes} more and a volume of {@code total} bytes, else a
   * {@link Refusal}: OutOfRange when no pool takes a volume that large, ResourceExhausted when none has the room.
   */
  private static Object choose(List<Pool> candidates, long bytes, long total, String size) {
    if (candidates.isEmpty()) {
      return new Refusal(false, "rpc error: code = ResourceExhausted desc = no storage pool reaches the selected node");
    }
    Pool best = candidates.stream()
        .filter(p -> (p.maximumVolumeSize == null || total <= p.maximumVolumeSize) && bytes <= p.free())
        .max(Comparator.comparingLong(Pool::free)).orElse(null);
    if (best != null) {
      return best;
    }
    long largest = candidates.stream().mapToLong(p -> p.maximumVolumeSize == null ? Long.MAX_VALUE : p.maximumVolumeSize)
        .max().orElse(0);
    if (total > largest) {
      return new Refusal(true, "rpc error: code = OutOfRange desc = required capacity " + size
          + " is greater than the maximum volume size " + quantity(largest));
    }
    long free = candidates.stream().mapToLong(Pool::free).max().orElse(0);
    return new Refusal(false, "rpc error: code = ResourceExhausted desc = insufficient capacity: " + quantity(bytes)
        + " more needed, " + quantity(free) + " available");
  }

  // --- provisioning --------------------------------------------------------------------------------

  /** What external-provisioner's shouldProvision asks. */
  private static boolean wantsProvisioning(PersistentVolumeClaim claim, StorageClass storageClass) {
    Map<String, String> annotations = map(claim.getMetadata().getAnnotations());
    String provisioner = annotations.getOrDefault(STORAGE_PROVISIONER, annotations.get(BETA_STORAGE_PROVISIONER));
    String phase = claim.getStatus() == null ? null : claim.getStatus().getPhase();
    boolean unbound = claim.getSpec().getVolumeName() == null || claim.getSpec().getVolumeName().isEmpty();
    boolean waiting = "WaitForFirstConsumer".equals(storageClass.getVolumeBindingMode())
        && !annotations.containsKey(SELECTED_NODE);
    return unbound && (phase == null || "Pending".equals(phase)) && !waiting
        && storageClass.getProvisioner().equals(provisioner);
  }

  private void provision(PersistentVolumeClaim claim, StorageClass storageClass, Map<String, PersistentVolume> volumes,
      List<Pool> classPools) {
    String volumeName = "pvc-" + claim.getMetadata().getUid();
    if (volumes.containsKey(volumeName)) {
      return; // provisioned already; the PV controller binds it
    }
    String provisioner = storageClass.getProvisioner();
    String component = provisioner + "_" + identity;
    Quantity requested = claim.getSpec().getResources().getRequests().get("storage");
    long bytes = bytes(requested);
    event(claim, "Normal", "Provisioning", "External provisioner is provisioning volume for claim \"" + key(claim)
        + "\"", component);
    Pool pool = null;
    if (!classPools.isEmpty()) {
      Object chosen = choose(reachable(classPools, map(claim.getMetadata().getAnnotations()).get(SELECTED_NODE)),
          bytes, bytes, requested.toString());
      if (chosen instanceof Refusal refusal) {
        event(claim, "Warning", "ProvisioningFailed", refusal.message(), component);
        return;
      }
      pool = (Pool) chosen;
    }
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put(PROVISIONER_IDENTITY, identity + "-" + provisioner);
    if (pool != null) {
      attributes.put(POOL_ATTRIBUTE, pool.key());
    }
    PersistentVolume volume = new PersistentVolumeBuilder()
        .withNewMetadata()
        .withName(volumeName)
        .addToAnnotations(PROVISIONED_BY, provisioner)
        .addToLabels(LabelKeys.SIMULATED, LabelKeys.TRUE)
        .endMetadata()
        .withNewSpec()
        .addToCapacity("storage", requested)
        .withAccessModes(claim.getSpec().getAccessModes())
        .withVolumeMode(claim.getSpec().getVolumeMode() == null ? "Filesystem" : claim.getSpec().getVolumeMode())
        .withPersistentVolumeReclaimPolicy(storageClass.getReclaimPolicy() == null ? "Delete"
            : storageClass.getReclaimPolicy())
        .withStorageClassName(storageClass.getMetadata().getName())
        .withMountOptions(storageClass.getMountOptions())
        .withNewClaimRef()
        .withKind("PersistentVolumeClaim")
        .withApiVersion("v1")
        .withNamespace(claim.getMetadata().getNamespace())
        .withName(claim.getMetadata().getName())
        .withUid(claim.getMetadata().getUid())
        .withResourceVersion(claim.getMetadata().getResourceVersion())
        .endClaimRef()
        .withNewCsi()
        .withDriver(provisioner)
        .withVolumeHandle(volumeName)
        .withVolumeAttributes(attributes)
        .endCsi()
        .endSpec()
        .build();
    try {
      client.persistentVolumes().resource(volume).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return; // created by an earlier pass this one did not list
      }
      throw e;
    }
    if (pool != null) {
      pool.used += bytes;
    }
    volumes.put(volumeName, volume);
    event(claim, "Normal", "ProvisioningSucceeded", "Successfully provisioned volume " + volumeName, component);
    log.info("claim provisioner stand-in provisioned {} ({}, {}) for claim {}", volumeName, requested, provisioner,
        key(claim));
  }

  /** The pools whose topology reaches the selected node; every pool of the class when none is selected. */
  private List<Pool> reachable(List<Pool> pools, String selectedNode) {
    if (selectedNode == null) {
      return pools;
    }
    Node node = client.nodes().withName(selectedNode).get();
    Map<String, String> labels = node == null ? Map.of() : map(node.getMetadata().getLabels());
    return pools.stream().filter(p -> node != null && matches(p.object.getNodeTopology(), labels)).toList();
  }

  /** A label selector as the API defines it; null selects nothing, an empty one everything. */
  static boolean matches(LabelSelector selector, Map<String, String> labels) {
    if (selector == null) {
      return false;
    }
    for (Map.Entry<String, String> e : map(selector.getMatchLabels()).entrySet()) {
      if (!e.getValue().equals(labels.get(e.getKey()))) {
        return false;
      }
    }
    for (LabelSelectorRequirement r : selector.getMatchExpressions() == null ? List.<LabelSelectorRequirement>of()
        : selector.getMatchExpressions()) {
      String value = labels.get(r.getKey());
      List<String> values = r.getValues() == null ? List.of() : r.getValues();
      boolean ok = switch (r.getOperator()) {
        case "In" -> value != null && values.contains(value);
        case "NotIn" -> value == null || !values.contains(value);
        case "Exists" -> value != null;
        case "DoesNotExist" -> value == null;
        default -> false;
      };
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  // --- expansion -----------------------------------------------------------------------------------

  /** What external-resizer's pvcNeedResize asks: bound, and a request above the capacity. */
  private static boolean wantsExpansion(PersistentVolumeClaim claim) {
    if (claim.getStatus() == null || !"Bound".equals(claim.getStatus().getPhase())
        || claim.getSpec().getVolumeName() == null || claim.getStatus().getCapacity() == null) {
      return false;
    }
    Quantity capacity = claim.getStatus().getCapacity().get("storage");
    Quantity requested = claim.getSpec().getResources().getRequests().get("storage");
    return capacity != null && requested != null && bytes(requested) > bytes(capacity);
  }

  private void expand(PersistentVolumeClaim claim, PersistentVolume volume, Map<String, List<Pool>> pools) {
    if (volume == null || volume.getSpec().getCsi() == null || volume.getSpec().getClaimRef() == null
        || !claim.getMetadata().getUid().equals(volume.getSpec().getClaimRef().getUid())
        || !served(volume.getSpec().getCsi().getDriver())) {
      return; // not a volume of this driver bound to this claim (what CanSupport and pvCanBeExpanded ask)
    }
    String driver = volume.getSpec().getCsi().getDriver();
    String component = "external-resizer " + driver;
    Quantity wanted = claim.getSpec().getResources().getRequests().get("storage");
    long want = bytes(wanted);
    Map<String, Quantity> allocatedResources = map(claim.getStatus().getAllocatedResources());
    String resizeStatus = map(claim.getStatus().getAllocatedResourceStatuses()).get("storage");
    Quantity allocated = allocatedResources.get("storage");
    if (CONTROLLER_RESIZE_INFEASIBLE.equals(resizeStatus) && allocated != null && bytes(allocated) == want) {
      return; // refused as infeasible for this size; tried again when the request changes
    }
    String volumeName = volume.getMetadata().getName();
    if (!CONTROLLER_RESIZE_IN_PROGRESS.equals(resizeStatus) || allocated == null || bytes(allocated) != want) {
      claim = markResizing(claim, wanted);
      event(claim, "Normal", RESIZING, "External resizer is resizing volume " + volumeName, component);
    }
    long volumeSize = bytes(volume.getSpec().getCapacity().get("storage"));
    if (volumeSize < want) {
      Pool pool = pools.values().stream().flatMap(List::stream).filter(p -> p.key().equals(poolOf(volume)))
          .findFirst().orElse(null);
      if (pool != null) {
        Object chosen = choose(List.of(pool), want - volumeSize, want, wanted.toString());
        if (chosen instanceof Refusal refusal) {
          event(claim, "Warning", "VolumeResizeFailed", "resize volume \"" + volumeName + "\" by resizer \"" + driver
              + "\" failed: " + refusal.message(), component);
          if (refusal.infeasible()) {
            markInfeasible(claim, refusal.message());
          }
          return;
        }
        pool.used += want - volumeSize;
      }
      client.persistentVolumes().withName(volumeName).patch(PatchContext.of(PatchType.JSON_MERGE),
          json(Map.of("spec", Map.of("capacity", Map.of("storage", wanted.toString())))));
    }
    finishResize(claim, wanted);
    event(claim, "Normal", "VolumeResizeSuccessful", "Resize volume succeeded", component);
    log.info("claim provisioner stand-in expanded claim {} ({}) to {}", key(claim), volumeName, wanted);
  }

  /** external-resizer's markControllerResizeInProgress: the Resizing condition, allocatedResources and the status. */
  private PersistentVolumeClaim markResizing(PersistentVolumeClaim claim, Quantity wanted) {
    List<Map<String, Object>> conditions = otherConditions(claim);
    conditions.add(condition(RESIZING, null));
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("conditions", conditions);
    status.put("allocatedResources", Map.of("storage", wanted.toString()));
    status.put("allocatedResourceStatuses", Map.of("storage", CONTROLLER_RESIZE_IN_PROGRESS));
    Map<String, Object> annotations = new HashMap<>();
    annotations.put(NODE_EXPANSION_NOT_REQUIRED, null);
    return patchStatus(claim, annotations, status);
  }

  /** external-resizer's markOverallExpansionAsFinished for a driver without node expansion. */
  private void finishResize(PersistentVolumeClaim claim, Quantity wanted) {
    Map<String, Object> capacity = new LinkedHashMap<>();
    map(claim.getStatus().getCapacity()).forEach((k, v) -> capacity.put(k, v.toString()));
    capacity.put("storage", wanted.toString());
    Map<String, String> statuses = new LinkedHashMap<>(map(claim.getStatus().getAllocatedResourceStatuses()));
    statuses.remove("storage");
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("capacity", capacity);
    status.put("conditions", otherConditions(claim));
    status.put("allocatedResourceStatuses", statuses.isEmpty() ? null : statuses);
    patchStatus(claim, Map.of(NODE_EXPANSION_NOT_REQUIRED, "true"), status);
  }

  /** external-resizer's markControllerExpansionInfeasible: OutOfRange is not retried for this size. */
  private void markInfeasible(PersistentVolumeClaim claim, String message) {
    List<Map<String, Object>> conditions = otherConditions(claim);
    conditions.add(condition("ControllerResizeError", "failed to expand pvc with " + message));
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("conditions", conditions);
    status.put("allocatedResourceStatuses", Map.of("storage", CONTROLLER_RESIZE_INFEASIBLE));
    patchStatus(claim, Map.of(), status);
  }

  /** The claim's conditions other than those of a resize, as JSON. */
  private static List<Map<String, Object>> otherConditions(PersistentVolumeClaim claim) {
    List<Map<String, Object>> kept = new ArrayList<>();
    for (PersistentVolumeClaimCondition c : claim.getStatus().getConditions() == null
        ? List.<PersistentVolumeClaimCondition>of() : claim.getStatus().getConditions()) {
      if (!RESIZE_CONDITIONS.contains(c.getType())) {
        Map<String, Object> condition = JSON.convertValue(c, new TypeReference<LinkedHashMap<String, Object>>() {});
        condition.values().removeIf(Objects::isNull);
        kept.add(condition);
      }
    }
    return kept;
  }

  private Map<String, Object> condition(String type, String message) {
    Map<String, Object> condition = new LinkedHashMap<>();
    condition.put("type", type);
    condition.put("status", "True");
    condition.put("lastTransitionTime", clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
    if (message != null) {
      condition.put("message", message);
    }
    return condition;
  }

  /**
   * A JSON merge patch of the status subresource (annotations ride along, as external-resizer's do), with the
   * claim's resourceVersion as a precondition: a claim changed meanwhile is 409, and the next pass starts over.
   */
  private PersistentVolumeClaim patchStatus(PersistentVolumeClaim claim, Map<String, Object> annotations,
      Map<String, Object> status) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("resourceVersion", claim.getMetadata().getResourceVersion());
    if (!annotations.isEmpty()) {
      metadata.put("annotations", annotations);
    }
    Map<String, Object> patch = new LinkedHashMap<>();
    patch.put("metadata", metadata);
    patch.put("status", status);
    return claimResource(claim).subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE), json(patch));
  }

  private Resource<PersistentVolumeClaim> claimResource(PersistentVolumeClaim claim) {
    return client.persistentVolumeClaims().inNamespace(claim.getMetadata().getNamespace())
        .withName(claim.getMetadata().getName());
  }

  // --- reclaim -------------------------------------------------------------------------------------

  /** external-provisioner's shouldDelete: a volume it provisioned, Released, with reclaim policy Delete. */
  private void reclaim(PersistentVolume volume, Map<String, List<Pool>> pools) {
    String provisioner = map(volume.getMetadata().getAnnotations()).get(PROVISIONED_BY);
    if (!served(provisioner) || volume.getSpec().getCsi() == null
        || !provisioner.equals(volume.getSpec().getCsi().getDriver())
        || volume.getMetadata().getDeletionTimestamp() != null
        || volume.getStatus() == null || !"Released".equals(volume.getStatus().getPhase())
        || !"Delete".equals(volume.getSpec().getPersistentVolumeReclaimPolicy())) {
      return;
    }
    String name = volume.getMetadata().getName();
    // DeleteVolume frees the space; then the object goes (pv-protection lets a Released volume go).
    client.persistentVolumes().withName(name).delete();
    String poolKey = poolOf(volume);
    pools.values().stream().flatMap(List::stream).filter(p -> p.key().equals(poolKey)).findFirst()
        .ifPresent(p -> p.used -= bytes(volume.getSpec().getCapacity().get("storage")));
    var ref = volume.getSpec().getClaimRef();
    log.info("claim provisioner stand-in deleted volume {} ({}): its claim {} is gone", name, provisioner,
        ref == null ? "?" : ref.getNamespace() + "/" + ref.getName());
  }

  // --- helpers -------------------------------------------------------------------------------------

  private void event(PersistentVolumeClaim claim, String type, String reason, String message, String component) {
    String uid = claim.getMetadata().getUid();
    if (!reported.add(uid + "/" + reason + "/" + message)) {
      return;
    }
    Instant now = clock.instant();
    String namespace = claim.getMetadata().getNamespace();
    try {
      client.v1().events().inNamespace(namespace).resource(new EventBuilder()
          .withNewMetadata()
          .withName(claim.getMetadata().getName() + "." + Long.toHexString(now.toEpochMilli() * 1000
              + eventSequence.incrementAndGet() % 1000))
          .withNamespace(namespace)
          .addToLabels(LabelKeys.SIMULATED, LabelKeys.TRUE)
          .endMetadata()
          .withNewInvolvedObject()
          .withApiVersion("v1")
          .withKind("PersistentVolumeClaim")
          .withNamespace(namespace)
          .withName(claim.getMetadata().getName())
          .withUid(uid)
          .withResourceVersion(claim.getMetadata().getResourceVersion())
          .endInvolvedObject()
          .withType(type)
          .withReason(reason)
          .withMessage(message)
          .withCount(1)
          .withFirstTimestamp(now.truncatedTo(ChronoUnit.SECONDS).toString())
          .withLastTimestamp(now.truncatedTo(ChronoUnit.SECONDS).toString())
          .withNewSource().withComponent(component).endSource()
          .build()).create();
    } catch (KubernetesClientException e) {
      reported.remove(uid + "/" + reason + "/" + message);
      log.warn("claim provisioner stand-in could not record event {} on {}: {}", reason, key(claim), e.toString());
    }
  }

  private static long bytes(Quantity quantity) {
    return Quantity.getAmountInBytes(quantity).longValue();
  }

  /** A byte count as the largest binary unit that divides it: {@code 10Gi}, {@code 512Mi}. */
  static String quantity(long bytes) {
    String[] units = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
    for (int i = 0; i < units.length; i++) {
      long unit = 1L << (10 * (units.length - i));
      if (bytes != 0 && bytes % unit == 0) {
        return bytes / unit + units[i];
      }
    }
    return String.valueOf(bytes);
  }

  private static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static <K, V> Map<K, V> map(Map<K, V> map) {
    return map == null ? Map.of() : map;
  }

  private static String key(PersistentVolumeClaim claim) {
    return claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName();
  }

  @Override
  public void close() {
    loop.shutdownNow();
    changes.close();
  }
}
