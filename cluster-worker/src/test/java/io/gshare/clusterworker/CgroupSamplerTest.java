package io.gshare.clusterworker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The sampler against fixture cgroup v2 trees laid out as the kubelet's two cgroup drivers lay them out. */
class CgroupSamplerTest {

  @TempDir Path root;
  private final AtomicLong nanos = new AtomicLong(TimeUnit.HOURS.toNanos(1));
  private CgroupSampler sampler;

  @BeforeEach
  void setUp() throws IOException {
    sampler = new CgroupSampler(root, nanos::get);
    // What else a node's hierarchy holds: walked past, never taken for a pod.
    cgroup(root.resolve("system.slice/containerd.service"), 1, 1, null);
    cgroup(root.resolve("user.slice/user-1000.slice/session-3.scope"), 1, 1, null);
    cgroup(root.resolve("kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
        + UUID.randomUUID().toString().replace('-', '_') + ".slice/cri-containerd-" + containerId() + ".scope"), 1, 1, null);
  }

  /** The directory of a pod's container under each driver and QoS class, relative to the root. */
  static Stream<Arguments> layouts() {
    return Stream.of(
        Arguments.of("systemd, Guaranteed, containerd", "kubepods.slice/kubepods-pod%2$s.slice/cri-containerd-%3$s.scope"),
        Arguments.of("systemd, Burstable, CRI-O",
            "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%2$s.slice/crio-%3$s.scope"),
        Arguments.of("systemd, BestEffort, Docker",
            "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod%2$s.slice/docker-%3$s.scope"),
        Arguments.of("systemd in kind", "kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
            + "kubelet-kubepods-besteffort-pod%2$s.slice/cri-containerd-%3$s.scope"),
        Arguments.of("cgroupfs, Guaranteed", "kubepods/pod%1$s/%3$s"),
        Arguments.of("cgroupfs, Burstable", "kubepods/burstable/pod%1$s/%3$s"),
        Arguments.of("cgroupfs, BestEffort", "kubepods/besteffort/pod%1$s/%3$s"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("layouts")
  void findsTheContainerAndRatesItsCountersOverTheInterval(String layout, String pattern) throws IOException {
    String uid = UUID.randomUUID().toString();
    String id = containerId();
    Path dir = root.resolve(pattern.formatted(uid, uid.replace('-', '_'), id));
    cgroup(dir, 1_000_000, 512L << 20, "8:0 rbytes=1000 wbytes=2000 rios=1 wios=2 dbytes=0 dios=0\n"
        + "259:0 rbytes=500 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n");
    // CRI-O's monitor sits next to the container, with the same id in its name: not the container.
    cgroup(dir.resolveSibling("crio-conmon-" + id + ".scope"), 99_000_000, 1, null);

    assertThat(sampler.sample(uid, List.of(id))).as("the first reading has nothing to rate against").isEmpty();

    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(500));
    cgroup(dir, 2_000_000, 600L << 20, "8:0 rbytes=3000 wbytes=2500 rios=9 wios=3 dbytes=0 dios=0\n"
        + "259:0 rbytes=1500 wbytes=0 rios=2 wios=0 dbytes=0 dios=0\n");
    CgroupSampler.Usage usage = sampler.sample(uid, List.of(id)).orElseThrow();

    assertThat(usage.cpuCores()).isCloseTo(2.0, within(1e-9)); // 1 s of CPU in half a second
    assertThat(usage.memoryBytes()).isEqualTo(600L << 20);
    assertThat(usage.ioReadBytesPerSecond()).isCloseTo(6000.0, within(1e-9)); // (2000 + 1000) bytes in 0.5 s
    assertThat(usage.ioWriteBytesPerSecond()).isCloseTo(1000.0, within(1e-9));
  }

  @Test
  void aMissingIoStatIsNoIo() throws IOException {
    String uid = UUID.randomUUID().toString();
    String id = containerId();
    Path dir = root.resolve("kubepods/pod" + uid + "/" + id);
    cgroup(dir, 0, 100, null);
    sampler.sample(uid, List.of(id));
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
    cgroup(dir, 250_000, 100, null);

    assertThat(sampler.sample(uid, List.of(id))).hasValue(new CgroupSampler.Usage(0.25, 100, 0, 0));
  }

  @Test
  void aCounterLowerThanBeforeIsANewCounterNeverANegativeRate() throws IOException {
    String uid = UUID.randomUUID().toString();
    Path podDir = root.resolve("kubepods.slice/kubepods-pod" + uid.replace('-', '_') + ".slice");
    cgroup(podDir, 50_000_000, 1 << 30, "8:0 rbytes=9000000 wbytes=9000000 rios=1 wios=1 dbytes=0 dios=0\n");
    sampler.sample(uid, List.of());
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(2));
    // recreated: the counters start again from zero
    cgroup(podDir, 1_000_000, 1 << 20, "8:0 rbytes=4000 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n");

    CgroupSampler.Usage usage = sampler.sample(uid, List.of()).orElseThrow();
    assertThat(usage.cpuCores()).isCloseTo(0.5, within(1e-9));
    assertThat(usage.ioReadBytesPerSecond()).isCloseTo(2000.0, within(1e-9));
    assertThat(usage.ioWriteBytesPerSecond()).isZero();
    assertThat(usage.memoryBytes()).isEqualTo(1 << 20);
  }

  @Test
  void withoutAContainerDirectoryThePodsOwnIsSampled() throws IOException {
    String uid = UUID.randomUUID().toString();
    Path podDir = root.resolve("kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + uid.replace('-', '_')
        + ".slice");
    cgroup(podDir, 0, 300, null);
    sampler.sample(uid, List.of(containerId())); // a runtime whose naming is not known: no container directory
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
    cgroup(podDir, 3_000_000, 400, null);

    assertThat(sampler.sample(uid, List.of(containerId()))).hasValue(new CgroupSampler.Usage(3.0, 400, 0, 0));
    assertThat(sampler.sample(UUID.randomUUID().toString(), List.of())).as("a pod with no directory").isEmpty();
  }

  @Test
  void aPodsContainersAreSummed() throws IOException {
    String uid = UUID.randomUUID().toString();
    String main = containerId();
    String sidecar = containerId();
    Path podDir = root.resolve("kubepods/burstable/pod" + uid);
    cgroup(podDir, 0, 10_000, null); // also counts the sandbox: not read while containers are found
    cgroup(podDir.resolve(main), 0, 1000, null);
    cgroup(podDir.resolve(sidecar), 0, 10, null);
    sampler.sample(uid, List.of(main, sidecar));
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
    cgroup(podDir.resolve(main), 1_000_000, 2000, null);
    cgroup(podDir.resolve(sidecar), 500_000, 20, null);

    assertThat(sampler.sample(uid, List.of(main, sidecar))).hasValue(new CgroupSampler.Usage(1.5, 2020, 0, 0));
  }

  @Test
  void aVanishedDirectoryIsSearchedForAgain() throws IOException {
    String uid = UUID.randomUUID().toString();
    String first = containerId();
    Path podDir = root.resolve("kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + uid.replace('-', '_')
        + ".slice");
    cgroup(podDir, 0, 1, null);
    cgroup(podDir.resolve("cri-containerd-" + first + ".scope"), 0, 1, null);
    sampler.sample(uid, List.of(first));
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
    assertThat(sampler.sample(uid, List.of(first))).isPresent();

    // The container restarted: its directory is gone and the next one is new, so it has no rate yet.
    delete(podDir.resolve("cri-containerd-" + first + ".scope"));
    String second = containerId();
    cgroup(podDir.resolve("cri-containerd-" + second + ".scope"), 0, 5, null);
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
    assertThat(sampler.sample(uid, List.of(second))).isEmpty();
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
    cgroup(podDir.resolve("cri-containerd-" + second + ".scope"), 700_000, 5, null);
    assertThat(sampler.sample(uid, List.of(second))).hasValue(new CgroupSampler.Usage(0.7, 5, 0, 0));

    // The pod is gone altogether.
    delete(podDir);
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
    assertThat(sampler.sample(uid, List.of(second))).isEmpty();
  }

  @Test
  void aPodNotFoundIsSearchedForAgainOnlyNowAndThenButANewPodAtOnce() throws IOException {
    String late = UUID.randomUUID().toString();
    assertThat(sampler.sample(late, List.of())).isEmpty();
    Path lateDir = root.resolve("kubepods/pod" + late);
    cgroup(lateDir, 0, 1, null);
    String fresh = UUID.randomUUID().toString();
    cgroup(root.resolve("kubepods/besteffort/pod" + fresh), 0, 1, null);

    nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
    assertThat(sampler.sample(late, List.of())).as("not walked for again yet").isEmpty();
    sampler.sample(fresh, List.of()); // a pod never asked for: walked for at once, which indexes the late pod too
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
    cgroup(lateDir, 1_000_000, 1, null);
    sampler.sample(late, List.of());
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
    cgroup(lateDir, 2_000_000, 1, null);
    assertThat(sampler.sample(late, List.of())).hasValue(new CgroupSampler.Usage(1.0, 1, 0, 0));

    String missing = UUID.randomUUID().toString();
    sampler.sample(missing, List.of());
    cgroup(root.resolve("kubepods/pod" + missing), 0, 1, null);
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(CgroupSampler.RETRY_SECONDS));
    sampler.sample(missing, List.of());
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
    assertThat(sampler.sample(missing, List.of())).as("walked for again after the retry delay").isPresent();
  }

  @Test
  void aForgottenPodStartsOver() throws IOException {
    String uid = UUID.randomUUID().toString();
    cgroup(root.resolve("kubepods/pod" + uid), 0, 1, null);
    sampler.sample(uid, List.of());
    sampler.retain(Set.of());
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
    assertThat(sampler.sample(uid, List.of())).isEmpty();
  }

  @Test
  void readsContainerIdsAndPodUidsAsTheRuntimesAndDriversWriteThem() {
    assertThat(CgroupSampler.containerId("containerd://abc123")).isEqualTo("abc123");
    assertThat(CgroupSampler.containerId("cri-o://def")).isEqualTo("def");
    assertThat(CgroupSampler.containerId("docker://0f0f")).isEqualTo("0f0f");
    assertThat(CgroupSampler.containerId(null)).isNull();
    assertThat(CgroupSampler.containerId("")).isNull();

    String uid = "0d9e6b5c-1f2a-4b3c-9d8e-7f6a5b4c3d2e";
    assertThat(CgroupSampler.podUid("kubepods-burstable-pod0d9e6b5c_1f2a_4b3c_9d8e_7f6a5b4c3d2e.slice")).isEqualTo(uid);
    assertThat(CgroupSampler.podUid("kubepods-pod0d9e6b5c_1f2a_4b3c_9d8e_7f6a5b4c3d2e.slice")).isEqualTo(uid);
    assertThat(CgroupSampler.podUid("pod" + uid)).isEqualTo(uid);
    assertThat(CgroupSampler.podUid("kubepods-burstable.slice")).isNull();
    assertThat(CgroupSampler.podUid("kubepods")).isNull();
    assertThat(CgroupSampler.podUid("podman.service")).isNull();
  }

  /** Writes a cgroup's counter files, creating its directory; {@code io} null leaves io.stat out. */
  static void cgroup(Path dir, long usageUsec, long memoryBytes, String io) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("cpu.stat"), "usage_usec " + usageUsec + "\nuser_usec " + usageUsec / 2
        + "\nsystem_usec " + usageUsec / 2 + "\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n");
    Files.writeString(dir.resolve("memory.current"), memoryBytes + "\n");
    if (io != null) {
      Files.writeString(dir.resolve("io.stat"), io);
    }
  }

  static String containerId() {
    byte[] bytes = new byte[32];
    ThreadLocalRandom.current().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
