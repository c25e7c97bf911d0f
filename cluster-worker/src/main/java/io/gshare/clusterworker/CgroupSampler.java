package io.gshare.clusterworker;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * What a pod's containers used, read from the node's cgroup v2 files: no Kubernetes, no runtime API, so it works
 * the same under containerd, CRI-O and Docker and needs nothing but the hierarchy mounted.
 *
 * <p>The kubelet's layout depends on its cgroup driver, its QoS classes and the distribution (kind and k3s nest
 * {@code kubepods} deeper), so the pod's directory is searched for by name rather than built: {@code
 * ...-pod<uid with _>.slice} (systemd driver) or {@code pod<uid>} (cgroupfs), anywhere a few levels under the root;
 * a container's is the pod directory's child named {@code cri-containerd-<id>.scope}, {@code crio-<id>.scope},
 * {@code docker-<id>.scope} or {@code <id>}. Found directories are cached until they vanish; one walk indexes every
 * pod it passes, and a pod not found is searched again only every {@link #RETRY_SECONDS} (a new pod at once).
 *
 * <p>A pod's usage is the sum over its containers' directories; when none of them is found (no container ids yet,
 * an unknown runtime's naming), the pod's own directory, which also counts the sandbox. Rates come from the
 * previous reading of the same directory: <b>the first reading of a directory yields no rate</b>, and a pod none
 * of whose directories has a rate yet yields no sample (the chart starts one interval later instead of with a
 * false zero). A counter lower than before is a new cgroup at the same path (a recreated pod-level cgroup): its
 * whole value was used since the previous reading, so that is the delta, never a negative one.
 *
 * <p>Not thread-safe: one loop owns it.
 */
final class CgroupSampler {

  /** What a pod used over the last interval; memory is the current charge. */
  record Usage(double cpuCores, long memoryBytes, double ioReadBytesPerSecond, double ioWriteBytesPerSecond) {}

  /** One directory's counters and when they were read (monotonic nanoseconds). */
  private record Reading(long usageUsec, long memoryBytes, long readBytes, long writeBytes, long atNanos) {}

  /** What is known of one pod: its container directories by id, and the last reading of each directory read. */
  private static final class PodCgroups {
    final Map<String, Path> containers = new HashMap<>();
    Map<Path, Reading> readings = Map.of();
  }

  static final int RETRY_SECONDS = 10;
  /** How deep under the root a pod's directory may be: kind's {@code kubelet.slice/kubelet-kubepods.slice/...-besteffort.slice/<pod>} is 4. */
  static final int MAX_DEPTH = 6;
  private static final List<String> CONTAINER_PREFIXES = List.of("cri-containerd-", "crio-", "docker-");

  private final Path root;
  private final LongSupplier nanoTime;
  private final Map<String, PodCgroups> pods = new HashMap<>();
  /** Pod directories by pod uid, from the last walk. */
  private Map<String, Path> podDirs = Map.of();
  /** Pods the last walk looked for and did not find: searched again only after {@link #RETRY_SECONDS}. */
  private final Set<String> missed = new HashSet<>();
  private long walkedAt;
  private boolean walked;

  CgroupSampler(Path root) {
    this(root, System::nanoTime);
  }

  CgroupSampler(Path root, LongSupplier nanoTime) {
    this.root = root;
    this.nanoTime = nanoTime;
  }

  /**
   * The container id of a pod status's {@code containerID} ({@code containerd://<id>}, {@code cri-o://<id>},
   * {@code docker://<id>}), or null when the runtime has not named the container yet.
   */
  static String containerId(String containerId) {
    if (containerId == null || containerId.isBlank()) {
      return null;
    }
    int scheme = containerId.indexOf("://");
    return scheme < 0 ? containerId.trim() : containerId.substring(scheme + 3).trim();
  }

  /**
   * The pod's usage since the previous call for it; empty when its cgroups are not found or have no previous
   * reading yet.
   *
   * @param containerIds its containers' ids, without the runtime's scheme (see {@link #containerId})
   */
  Optional<Usage> sample(String podUid, Collection<String> containerIds) {
    PodCgroups pod = pods.computeIfAbsent(podUid, uid -> new PodCgroups());
    List<Path> dirs = new ArrayList<>();
    for (String id : containerIds) {
      Path dir = containerDir(pod, podUid, id);
      if (dir != null) {
        dirs.add(dir);
      }
    }
    if (dirs.isEmpty()) {
      Path podDir = podDir(podUid);
      if (podDir != null) {
        dirs.add(podDir);
      }
    }
    Map<Path, Reading> readings = new HashMap<>();
    double cpuCores = 0;
    double readRate = 0;
    double writeRate = 0;
    long memory = 0;
    boolean rated = false;
    for (Path dir : dirs) {
      Reading now;
      try {
        now = read(dir);
      } catch (IOException | NumberFormatException gone) {
        // removed between the search and the read (a container that exited): searched again next time
        pod.containers.values().remove(dir);
        continue;
      }
      readings.put(dir, now);
      memory += now.memoryBytes();
      Reading before = pod.readings.get(dir);
      if (before != null && now.atNanos() > before.atNanos()) {
        double seconds = (now.atNanos() - before.atNanos()) / 1e9;
        cpuCores += delta(before.usageUsec(), now.usageUsec()) / 1e6 / seconds;
        readRate += delta(before.readBytes(), now.readBytes()) / seconds;
        writeRate += delta(before.writeBytes(), now.writeBytes()) / seconds;
        rated = true;
      }
    }
    pod.readings = readings;
    return rated ? Optional.of(new Usage(cpuCores, memory, readRate, writeRate)) : Optional.empty();
  }

  /** Forgets every pod but these: their directories, readings and misses. */
  void retain(Set<String> podUids) {
    pods.keySet().retainAll(podUids);
    missed.retainAll(podUids);
  }

  /** A counter's increase; a lower value is a new counter, all of whose value is new. */
  private static long delta(long before, long now) {
    return now >= before ? now - before : now;
  }

  private Path containerDir(PodCgroups pod, String podUid, String id) {
    Path cached = pod.containers.get(id);
    if (cached != null && Files.isDirectory(cached)) {
      return cached;
    }
    pod.containers.remove(id);
    Path podDir = podDir(podUid);
    if (podDir == null) {
      return null;
    }
    Set<String> names = new HashSet<>();
    names.add(id);
    for (String prefix : CONTAINER_PREFIXES) {
      names.add(prefix + id + ".scope");
      names.add(prefix + id);
    }
    for (String name : names) {
      Path dir = podDir.resolve(name);
      if (Files.isDirectory(dir)) {
        pod.containers.put(id, dir);
        return dir;
      }
    }
    return null;
  }

  private Path podDir(String podUid) {
    Path known = podDirs.get(podUid);
    if (known != null && Files.isDirectory(known)) {
      return known;
    }
    long now = nanoTime.getAsLong();
    if (!walked || !missed.contains(podUid) || now - walkedAt >= TimeUnit.SECONDS.toNanos(RETRY_SECONDS)) {
      podDirs = walk();
      walked = true;
      walkedAt = now;
    }
    known = podDirs.get(podUid);
    if (known == null) {
      missed.add(podUid);
    } else {
      missed.remove(podUid);
    }
    return known;
  }

  /**
   * Every pod directory within {@link #MAX_DEPTH} of the root, by pod uid. Breadth first, directories only, and
   * not into a pod's or a scope's directory: below those are containers, not pods.
   */
  private Map<String, Path> walk() {
    Map<String, Path> found = new HashMap<>();
    Deque<Path> level = new ArrayDeque<>(List.of(root));
    for (int depth = 0; depth < MAX_DEPTH && !level.isEmpty(); depth++) {
      Deque<Path> next = new ArrayDeque<>();
      for (Path dir : level) {
        try (DirectoryStream<Path> children = Files.newDirectoryStream(dir, Files::isDirectory)) {
          for (Path child : children) {
            String name = child.getFileName().toString();
            String uid = podUid(name);
            if (uid != null) {
              found.put(uid, child);
            } else if (!name.endsWith(".scope")) {
              next.add(child);
            }
          }
        } catch (IOException | SecurityException e) {
          // a directory removed while walking, or one the agent may not read: not where pods are
        }
      }
      level = next;
    }
    return found;
  }

  /**
   * The pod uid a directory's name carries: {@code kubepods-burstable-pod<uid with _>.slice} (systemd driver) or
   * {@code pod<uid>} (cgroupfs); null for any other directory.
   */
  static String podUid(String name) {
    if (name.endsWith(".slice")) {
      int pod = name.lastIndexOf("-pod");
      return pod < 0 ? null : uid(name.substring(pod + 4, name.length() - ".slice".length()));
    }
    return name.startsWith("pod") ? uid(name.substring(3)) : null;
  }

  /**
   * A uid's text, with the systemd driver's underscores back to dashes; null when it is not one (a uid is a UUID, or
   * a static pod's 32 hex digits).
   */
  private static String uid(String text) {
    String uid = text.replace('_', '-');
    return uid.length() >= 32 && uid.chars().allMatch(c -> c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c == '-')
        ? uid : null;
  }

  /** The directory's counters now; throws when it (or its {@code cpu.stat} or {@code memory.current}) is gone. */
  private Reading read(Path dir) throws IOException {
    long at = nanoTime.getAsLong();
    long usage = -1;
    for (String line : Files.readAllLines(dir.resolve("cpu.stat"))) {
      if (line.startsWith("usage_usec ")) {
        usage = Long.parseLong(line.substring("usage_usec ".length()).trim());
      }
    }
    if (usage < 0) {
      throw new IOException(dir.resolve("cpu.stat") + " has no usage_usec");
    }
    long memory = Long.parseLong(Files.readString(dir.resolve("memory.current")).trim());
    long read = 0;
    long written = 0;
    List<String> io;
    try {
      io = Files.readAllLines(dir.resolve("io.stat"));
    } catch (NoSuchFileException noIoController) {
      io = List.of();
    }
    for (String line : io) {
      for (String field : line.trim().split("\\s+")) {
        if (field.startsWith("rbytes=")) {
          read += Long.parseLong(field.substring("rbytes=".length()));
        } else if (field.startsWith("wbytes=")) {
          written += Long.parseLong(field.substring("wbytes=".length()));
        }
      }
    }
    return new Reading(usage, memory, read, written, at);
  }
}
