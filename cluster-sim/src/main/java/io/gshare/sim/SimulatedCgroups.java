package io.gshare.sim;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cgroup v2 files of the simulated nodes' containers, on disk, so that a node agent reading cgroup counters
 * has something real to read. Every Running pod with a uid gets the directories the kubelet's systemd cgroup
 * driver with containerd makes:
 * {@code <root>/kubepods.slice/kubepods-<qos>.slice/kubepods-<qos>-pod<uid, '-' as '_'>.slice/cri-containerd-<id>.scope/}
 * for a Burstable or BestEffort pod, {@code <root>/kubepods.slice/kubepods-pod<uid>.slice/...} for a Guaranteed
 * one, a scope per running container status (its {@code containerID} without {@code containerd://}). Each scope
 * holds {@code cpu.stat}, {@code memory.current} and {@code io.stat} as the kernel words them; the pod slice
 * holds the same files summed over its containers. The kubelets of all simulated nodes share the one root.
 *
 * <p>A simulation: no process runs. Every second each pod's counters advance at its {@link Load} (the default
 * until set through the control API), split evenly between its containers; {@code memory.current} is a gauge
 * set to the load. Files are replaced by an atomic rename, so a reader never sees half a file. A pod that
 * leaves Running or is deleted has its directories removed at the next pass, as the kubelet removes them.
 */
public final class SimulatedCgroups implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SimulatedCgroups.class);

  /** What a pod's containers do, together, per second. */
  public record Load(double cpuCores, long memoryBytes, double ioReadBytesPerSecond, double ioWriteBytesPerSecond) {

    static final Load DEFAULT = new Load(0.5, 256L << 20, 1 << 20, 512 << 10);

    public Load {
      if (!valid(cpuCores) || memoryBytes < 0 || !valid(ioReadBytesPerSecond) || !valid(ioWriteBytesPerSecond)) {
        throw new IllegalArgumentException("every load value must be finite and >= 0");
      }
    }

    static boolean valid(double value) {
      return Double.isFinite(value) && value >= 0;
    }
  }

  static final String KUBEPODS = "kubepods.slice";
  private static final Pattern ORPHAN =
      Pattern.compile("kubepods(-burstable|-besteffort)?-pod[0-9a-f_]+\\.slice");
  /** The block device the simulated containers read and write (an NVMe namespace's major:minor). */
  static final String DEVICE = "259:0";
  /** The size of one simulated I/O, to count {@code rios} and {@code wios}. */
  private static final long IO_SIZE = 64 << 10;

  /** A container's counters since it started: microseconds of CPU and bytes read and written. */
  private static final class Counters {
    double usageUsec;
    double readBytes;
    double writeBytes;
    long memoryBytes;
  }

  /** The directories of one running pod and its containers' counters, by container id. */
  private static final class PodCgroup {
    final Path slice;
    final Map<String, Counters> containers = new LinkedHashMap<>();
    long lastNanos;

    PodCgroup(Path slice, long now) {
      this.slice = slice;
      this.lastNanos = now;
    }
  }

  private final ClusterView cluster;
  private final Path root;
  private final boolean ownsRoot;
  private final ScheduledExecutorService loop;
  /** By pod uid; guarded by this. */
  private final Map<String, PodCgroup> pods = new HashMap<>();
  /** By pod uid; guarded by this. */
  private final Map<String, Load> loads = new HashMap<>();

  /** {@code root} null: a fresh temporary directory, deleted on close. */
  public SimulatedCgroups(ClusterView cluster, Path root) {
    this.cluster = cluster;
    try {
      this.ownsRoot = root == null;
      this.root = (root == null ? Files.createTempDirectory("gshare-sim-cgroup") : root).toAbsolutePath();
      for (String qos : List.of("burstable", "besteffort")) {
        Files.createDirectories(this.root.resolve(KUBEPODS).resolve("kubepods-" + qos + ".slice"));
      }
      removeOrphans(this.root.resolve(KUBEPODS));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make the simulated cgroup tree under " + root, e);
    }
    this.loop = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "gshare-sim-cgroups");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Removes the pod slices a simulator that did not close left behind, as the kubelet removes orphaned pod
   * cgroups on start: the mock's pod uids count up from 1 in every process, so a new pod would find them.
   */
  private static void removeOrphans(Path kubepods) throws IOException {
    for (Path parent : List.of(kubepods, kubepods.resolve("kubepods-burstable.slice"),
        kubepods.resolve("kubepods-besteffort.slice"))) {
      try (Stream<Path> children = Files.list(parent)) {
        children.filter(p -> Files.isDirectory(p) && ORPHAN.matcher(p.getFileName().toString()).matches())
            .forEach(SimulatedCgroups::remove);
      }
    }
  }

  public void start() {
    loop.scheduleAtFixedRate(this::tickQuietly, 0, 1, TimeUnit.SECONDS);
  }

  public Path root() {
    return root;
  }

  /**
   * The slice directory of a pod, relative to the root: {@code kubepods.slice/kubepods-burstable.slice/
   * kubepods-burstable-pod<uid>.slice}, {@code ...besteffort...} or, Guaranteed,
   * {@code kubepods.slice/kubepods-pod<uid>.slice}.
   */
  static Path podSlice(String uid, String qos) {
    String escaped = uid.replace('-', '_');
    Path kubepods = Path.of(KUBEPODS);
    return "guaranteed".equals(qos)
        ? kubepods.resolve("kubepods-pod" + escaped + ".slice")
        : kubepods.resolve("kubepods-" + qos + ".slice").resolve("kubepods-" + qos + "-pod" + escaped + ".slice");
  }

  /**
   * The pod's QoS class as the kubelet computes it from cpu and memory (a missing request defaulting to its limit,
   * as the apiserver defaults it): {@code besteffort} without any, {@code guaranteed} when every container has
   * both limits and the requests equal the limits, else {@code burstable}.
   */
  static String qos(Pod pod) {
    Map<String, BigDecimal> requests = new HashMap<>();
    Map<String, BigDecimal> limits = new HashMap<>();
    boolean guaranteed = true;
    List<Container> containers = new ArrayList<>(pod.getSpec().getContainers());
    if (pod.getSpec().getInitContainers() != null) {
      containers.addAll(pod.getSpec().getInitContainers());
    }
    for (Container c : containers) {
      Map<String, Quantity> limit = c.getResources() == null || c.getResources().getLimits() == null
          ? Map.of() : c.getResources().getLimits();
      Map<String, Quantity> request = c.getResources() == null || c.getResources().getRequests() == null
          ? Map.of() : c.getResources().getRequests();
      for (String name : List.of("cpu", "memory")) {
        BigDecimal l = positive(limit.get(name));
        BigDecimal r = request.containsKey(name) ? positive(request.get(name)) : l;
        if (l != null) {
          limits.merge(name, l, BigDecimal::add);
        } else {
          guaranteed = false;
        }
        if (r != null) {
          requests.merge(name, r, BigDecimal::add);
        }
      }
    }
    if (requests.isEmpty() && limits.isEmpty()) {
      return "besteffort";
    }
    guaranteed &= requests.size() == limits.size()
        && requests.entrySet().stream().allMatch(e -> limits.containsKey(e.getKey())
            && limits.get(e.getKey()).compareTo(e.getValue()) == 0);
    return guaranteed ? "guaranteed" : "burstable";
  }

  private static BigDecimal positive(Quantity q) {
    if (q == null) {
      return null;
    }
    BigDecimal amount = q.getNumericalAmount();
    return amount.signum() > 0 ? amount : null;
  }

  /** Sets a pod's load from the next pass on; false when the pod does not exist. */
  public synchronized boolean setLoad(String namespace, String name, Load load) {
    Pod pod = cluster.pod(namespace, name);
    if (pod == null || pod.getMetadata().getUid() == null) {
      return false;
    }
    loads.put(pod.getMetadata().getUid(), load);
    return true;
  }

  /** The pod's load; null when the pod does not exist. */
  synchronized Load load(String namespace, String name) {
    Pod pod = cluster.pod(namespace, name);
    return pod == null ? null : loads.getOrDefault(pod.getMetadata().getUid(), Load.DEFAULT);
  }

  private void tickQuietly() {
    try {
      tick();
    } catch (RuntimeException e) {
      log.warn("cgroup simulator pass failed: {}", e.toString());
    }
  }

  /** One pass: advances the counters of every running container and removes what no longer runs. */
  synchronized void tick() {
    long now = System.nanoTime();
    Set<String> existing = new HashSet<>();
    Set<String> running = new HashSet<>();
    for (Pod pod : cluster.pods()) {
      String uid = pod.getMetadata().getUid();
      if (uid == null) {
        continue;
      }
      existing.add(uid);
      List<String> ids = runningContainers(pod);
      if (pod.getStatus() == null || !"Running".equals(pod.getStatus().getPhase()) || ids.isEmpty()) {
        continue;
      }
      running.add(uid);
      try {
        advance(uid, root.resolve(podSlice(uid, qos(pod))), ids, now);
      } catch (IOException | RuntimeException e) {
        log.warn("cgroup simulator could not write pod {}/{}: {}", pod.getMetadata().getNamespace(),
            pod.getMetadata().getName(), e.toString());
      }
    }
    for (String uid : new ArrayList<>(pods.keySet())) {
      if (!running.contains(uid)) {
        remove(pods.remove(uid).slice);
      }
    }
    loads.keySet().retainAll(existing);
  }

  /** The ids of the pod's running containers, as containerd names their scopes. */
  private static List<String> runningContainers(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
      return List.of();
    }
    List<String> ids = new ArrayList<>();
    for (ContainerStatus s : pod.getStatus().getContainerStatuses()) {
      String id = s.getContainerID();
      if (id != null && id.contains("://") && s.getState() != null && s.getState().getRunning() != null) {
        ids.add(id.substring(id.indexOf("://") + 3));
      }
    }
    return ids;
  }

  private void advance(String uid, Path slice, List<String> ids, long now) throws IOException {
    PodCgroup pod = pods.get(uid);
    if (pod != null && !pod.slice.equals(slice)) {
      remove(pods.remove(uid).slice);
      pod = null;
    }
    if (pod == null) {
      pod = new PodCgroup(slice, now);
      pods.put(uid, pod);
    }
    for (String gone : new ArrayList<>(pod.containers.keySet())) {
      if (!ids.contains(gone)) {
        pod.containers.remove(gone);
        remove(scope(slice, gone));
      }
    }
    double seconds = (now - pod.lastNanos) / 1e9;
    pod.lastNanos = now;
    Load load = loads.getOrDefault(uid, Load.DEFAULT);
    int n = ids.size();
    long[] podTotals = new long[8];
    for (int i = 0; i < n; i++) {
      String id = ids.get(i);
      boolean started = pod.containers.containsKey(id);
      Counters c = pod.containers.computeIfAbsent(id, k -> new Counters());
      if (started) {
        c.usageUsec += load.cpuCores() * 1e6 * seconds / n;
        c.readBytes += load.ioReadBytesPerSecond() * seconds / n;
        c.writeBytes += load.ioWriteBytesPerSecond() * seconds / n;
      }
      c.memoryBytes = load.memoryBytes() / n + (i == 0 ? load.memoryBytes() % n : 0);
      long[] values = values(c);
      for (int v = 0; v < values.length; v++) {
        podTotals[v] += values[v];
      }
      write(scope(slice, id), values);
    }
    write(slice, podTotals);
  }

  private static Path scope(Path slice, String containerId) {
    return slice.resolve("cri-containerd-" + containerId + ".scope");
  }

  /** usage, user and system microseconds, memory bytes, read and written bytes, reads, writes. */
  private static long[] values(Counters c) {
    long usage = (long) c.usageUsec;
    long system = usage / 10;
    long read = (long) c.readBytes;
    long written = (long) c.writeBytes;
    return new long[] {usage, usage - system, system, c.memoryBytes, read, written,
        (read + IO_SIZE - 1) / IO_SIZE, (written + IO_SIZE - 1) / IO_SIZE};
  }

  private static void write(Path dir, long[] v) throws IOException {
    Files.createDirectories(dir);
    replace(dir, "cpu.stat", "usage_usec " + v[0] + "\nuser_usec " + v[1] + "\nsystem_usec " + v[2]
        + "\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n");
    replace(dir, "memory.current", v[3] + "\n");
    replace(dir, "io.stat", DEVICE + " rbytes=" + v[4] + " wbytes=" + v[5] + " rios=" + v[6] + " wios=" + v[7]
        + " dbytes=0 dios=0\n");
  }

  private static void replace(Path dir, String name, String content) throws IOException {
    Path temp = dir.resolve("." + name + ".tmp");
    Files.writeString(temp, content);
    Files.move(temp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private static void remove(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        try {
          Files.deleteIfExists(p);
        } catch (NoSuchFileException ignored) {
          // gone already
        }
      }
    } catch (IOException | UncheckedIOException e) {
      log.warn("cgroup simulator could not remove {}: {}", dir, e.toString());
    }
  }

  /** Stops the passes and removes the pods' directories (the whole root when the simulator made it). */
  @Override
  public void close() {
    loop.shutdownNow();
    try {
      loop.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      pods.values().forEach(p -> remove(p.slice));
      pods.clear();
    }
    if (ownsRoot) {
      remove(root);
    }
  }
}
