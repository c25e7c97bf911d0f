package io.gshare.localdeployer;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.model.WorkerObjects;
import io.gshare.activities.control.LocalWorkerSettings;
import io.gshare.activities.control.WorkerDeployer;
import io.gshare.workflows.cluster.AgentEnv;
import io.gshare.workflows.cluster.WorkerEnv;
import io.gshare.workflows.kube.SimulatorInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dev runtime's deployer (dev-only: no production jar carries it, {@code LocalWorkerDeployerProvider}): the
 * cluster-worker jar as a local process, configured as the Deployment configures the pod, with nothing of the api's
 * own environment: its apiserver from the cluster's kubeconfig, its in-cluster token a bound token of its
 * ServiceAccount that {@link ProjectedTokens} mints and refreshes as the kubelet projects one (the kubeconfig's
 * token where the cluster mints none), and its operator token copied from the cluster's
 * gshare-operator-internal-jwt Secret to a file, as the kubelet mounts it. One process per cluster.
 *
 * <p>{@link LocalWorkerSettings#shared() Shared} by several api replicas (the dev runtime's {@code --api-replicas}):
 * a worker is a child of the replicas' parent, the dev runtime, not of the replica whose activity started it, and its
 * pid is written beside its files ({@code worker.pid}, {@code agent.pid}), so that another replica takes it as
 * running, as applying a Deployment again changes nothing; a replica that stops leaves the workers running.
 */
public final class LocalProcessWorkerDeployer implements WorkerDeployer, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LocalProcessWorkerDeployer.class);

  /** The key of a cluster's usage agent among the processes (a cluster's worker is keyed by its id). */
  private static String agentKey(String clusterId) {
    return clusterId + "#agent";
  }

  private final LocalWorkerSettings settings;
  private final Map<String, Process> running = new ConcurrentHashMap<>();
  /** The command and environment of each wanted worker: restarted when it exits, as a Deployment would. */
  private final Map<String, Launch> wanted = new ConcurrentHashMap<>();
  private volatile boolean closing;
  /** The kubelet's part for the worker's in-cluster token. */
  private final ProjectedTokens projectedTokens = new ProjectedTokens(LocalProcessWorkerDeployer::writeSecretFile);

  public LocalProcessWorkerDeployer(LocalWorkerSettings settings) {
    this.settings = settings;
  }

  @Override
  public synchronized String ensureRunning(String clusterId, KubernetesClient cluster) {
    Path dir = settings.stateDir().resolve(clusterId);
    // Refresh the mounted files on every call, so a re-attach also delivers a rotated token.
    writeSecretFile(dir.resolve(WorkerObjects.TOKEN_KEY), operatorToken(cluster));
    String kubeToken = projectedTokens.project(clusterId, cluster, dir.resolve("serviceaccount-token"));

    String agent = settings.agentEnabled() ? ensureAgent(clusterId, cluster, dir) : "";
    Process current = running.get(clusterId);
    if (current != null && current.isAlive()) {
      return "local process " + current.pid() + " (already running; " + kubeToken + ")" + agent;
    }
    Optional<ProcessHandle> another = startedByAnotherReplica(clusterId);
    if (another.isPresent()) {
      return "local process " + another.get().pid() + " (already running, started by another replica; " + kubeToken
          + ")" + agent;
    }
    // The worker exits with this process, or with the dev runtime when replicas share it
    // (cluster-worker's ClusterWorkerMain.PARENT_PID_PROPERTY): no orphans.
    ProcessBuilder builder = new ProcessBuilder();
    List<String> jvmOptions = List.of("-Xmx384m", "-XX:TieredStopAtLevel=1",
        "-Dgshare.cluster-worker.parent-pid=" + parentPid());
    Map<String, String> env = podEnvironment(builder);
    WorkerObjects.environment(clusterId, settings.temporalAddress(), settings.temporalNamespace(),
            settings.controlPlaneUrl().get(), dir.resolve(WorkerObjects.TOKEN_KEY).toString(),
            settings.inventoryIntervalSeconds(), settings.volumeSyncIntervalSeconds())
        .forEach((variable, value) -> env.put(variable.variable(), value));
    if (settings.throughTemporalGateway()) {
      // Its only Temporal credential: the operator token it already holds, re-read on each call.
      env.put(WorkerEnv.TEMPORAL_API_KEY_FILE.variable(), dir.resolve(WorkerObjects.TOKEN_KEY).toString());
    }
    env.put("KUBERNETES_MASTER", cluster.getConfiguration().getMasterUrl());
    env.put("KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN", dir.resolve("serviceaccount-token").toString());
    env.put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
    env.put("KUBERNETES_NAMESPACE", WorkerObjects.NAMESPACE);
    trustClusterCa(cluster, dir, env);
    try {
      if (settings.logDir() == null) {
        builder.inheritIO();
      } else {
        Files.createDirectories(settings.logDir());
        builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(
            settings.logDir().resolve("cluster-worker-" + clusterId + ".log").toFile()));
      }
      Launch launch = new Launch(jvmOptions, List.of(), builder);
      wanted.put(clusterId, launch);
      Process process = launch(clusterId, launch);
      return "local process " + process.pid() + " (" + kubeToken + ")" + agent;
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the cluster-worker from " + settings.jar(), e);
    }
  }

  /**
   * The usage agent of a simulated cluster: one local process for all its nodes, sampling the cgroup tree the
   * simulator keeps for its running pods and its HAMi monitor. A cluster that is not a simulator has no cgroup
   * tree here, and gets no agent.
   */
  private String ensureAgent(String clusterId, KubernetesClient cluster, Path dir) {
    Process current = running.get(agentKey(clusterId));
    if (current != null && current.isAlive()) {
      return "; usage agent " + current.pid();
    }
    Optional<ProcessHandle> another = startedByAnotherReplica(agentKey(clusterId));
    if (another.isPresent()) {
      return "; usage agent " + another.get().pid() + " (started by another replica)";
    }
    ConfigMap info = simulatorInfo(cluster);
    boolean published = info != null && info.getData() != null;
    String cgroupRoot = published ? info.getData().getOrDefault(SimulatorInfo.CGROUP_ROOT, "") : "";
    String hamiMonitorUrl = published ? info.getData().getOrDefault(SimulatorInfo.HAMI_MONITOR_URL, "") : "";
    if (cgroupRoot.isBlank()) {
      log.info("cluster {} is not a simulator with a cgroup tree: no local usage agent", clusterId);
      return "; no usage agent (not a simulated cluster)";
    }
    ProcessBuilder builder = new ProcessBuilder();
    List<String> jvmOptions = List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-Dgshare.cluster-worker.parent-pid=" + parentPid());
    Map<String, String> env = podEnvironment(builder);
    env.put(AgentEnv.CONTROL_PLANE_URL.variable(), settings.controlPlaneUrl().get());
    env.put(AgentEnv.TOKEN_FILE.variable(), dir.resolve(WorkerObjects.TOKEN_KEY).toString());
    env.put(AgentEnv.CGROUP_ROOT.variable(), cgroupRoot);
    env.put(AgentEnv.HAMI_MONITOR_URL.variable(), hamiMonitorUrl);
    env.put("KUBERNETES_MASTER", cluster.getConfiguration().getMasterUrl());
    env.put("KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN", dir.resolve("serviceaccount-token").toString());
    env.put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
    trustClusterCa(cluster, dir, env);
    try {
      if (settings.logDir() == null) {
        builder.inheritIO();
      } else {
        Files.createDirectories(settings.logDir());
        builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(
            settings.logDir().resolve("usage-agent-" + clusterId + ".log").toFile()));
      }
      Launch launch = new Launch(jvmOptions, List.of("agent"), builder);
      wanted.put(agentKey(clusterId), launch);
      return "; usage agent " + launch(agentKey(clusterId), launch).pid();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the usage agent from " + settings.jar(), e);
    }
  }

  /**
   * The process's environment as a container's starts: none of the api's own (its database URL and user among it),
   * only what any process needs to run here; the caller adds what the Deployment or DaemonSet sets.
   */
  static Map<String, String> podEnvironment(ProcessBuilder builder) {
    Map<String, String> env = builder.environment();
    env.keySet().retainAll(INHERITED);
    return env;
  }

  /** What a local process keeps of the api's environment: where programs and temporary files are, the locale. */
  static final Set<String> INHERITED = Set.of("PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ");

  /** The simulator's ConfigMap saying where its node-level parts are; null on a cluster without one. */
  private static ConfigMap simulatorInfo(KubernetesClient cluster) {
    try {
      return cluster.configMaps().inNamespace(SimulatorInfo.NAMESPACE).withName(SimulatorInfo.CONFIG_MAP).get();
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * The cluster's CA, written where the worker reads it, as the kubelet mounts {@code ca.crt} beside the token: a
   * cluster whose apiserver has its own CA (every real one) is trusted through it and nothing else.
   */
  private static void trustClusterCa(KubernetesClient cluster, Path dir, Map<String, String> env) {
    String data = cluster.getConfiguration().getCaCertData();
    String file = cluster.getConfiguration().getCaCertFile();
    try {
      Path ca = dir.resolve("ca.crt");
      if (data != null && !data.isBlank()) {
        Files.createDirectories(dir);
        Files.write(ca, Base64.getDecoder().decode(data.trim()));
      } else if (file != null && !file.isBlank()) {
        Files.createDirectories(dir);
        Files.copy(Path.of(file), ca, StandardCopyOption.REPLACE_EXISTING);
      } else {
        return;
      }
      env.put("KUBERNETES_CERTS_CA_FILE", ca.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("could not write the cluster's CA for its worker", e);
    }
  }

  /** A wanted process: its JVM options and arguments, and its environment and output in {@code builder}. */
  private record Launch(List<String> jvmOptions, List<String> args, ProcessBuilder builder) {}

  /** The process a worker exits with: this api, or the dev runtime that runs the replicas sharing the workers. */
  private long parentPid() {
    ProcessHandle self = ProcessHandle.current();
    return settings.shared() ? self.parent().map(ProcessHandle::pid).orElse(self.pid()) : self.pid();
  }

  /** Where a shared worker's (or agent's) pid is kept: beside its mounted files. */
  private Path pidFile(String key) {
    boolean isAgent = key.endsWith("#agent");
    String clusterId = isAgent ? key.substring(0, key.length() - "#agent".length()) : key;
    return settings.stateDir().resolve(clusterId).resolve(isAgent ? "agent.pid" : "worker.pid");
  }

  /**
   * The live process another replica started for {@code key}, by its pid file: the pid and the process's start, so
   * that a pid the system gave to another process since is not taken for it. Empty when not shared.
   */
  private Optional<ProcessHandle> startedByAnotherReplica(String key) {
    if (!settings.shared()) {
      return Optional.empty();
    }
    return livePidFileProcess(pidFile(key));
  }

  /**
   * The process a pid file ({@code <pid> <start, epoch milliseconds>}) names, while it is the one that runs (its start
   * within a second of the one written: each JVM reckons it from the kernel's clock ticks).
   */
  static Optional<ProcessHandle> livePidFileProcess(Path file) {
    try {
      String[] words = Files.readString(file).trim().split("\\s+");
      long pid = Long.parseLong(words[0]);
      long started = Long.parseLong(words[1]);
      return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
          .filter(p -> Math.abs(p.info().startInstant().map(Instant::toEpochMilli).orElse(0L) - started) < 1_000);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private void writePidFile(String key, Process process) {
    long started = process.info().startInstant().map(Instant::toEpochMilli).orElse(-1L);
    writeSecretFile(pidFile(key), process.pid() + " " + started + "\n");
  }

  /** Starts the process (its command made afresh: a first run may write the class-data archive, later ones not). */
  private Process launch(String clusterId, Launch launch) throws IOException {
    JarLaunch.Command command = JarLaunch.of(javaExecutable(), launch.jvmOptions(), settings.jar(), launch.args());
    Process process = launch.builder().command(command.command()).start();
    running.put(clusterId, process);
    if (settings.shared()) {
      writePidFile(clusterId, process);
    }
    log.info("started the cluster-worker of {} as local process {}", clusterId, process.pid());
    process.onExit().thenAccept(command.onExit());
    process.onExit().thenRun(() -> restartIfWanted(clusterId, process));
    return process;
  }

  /** A crashed worker comes back after a second, like a pod of a Deployment. */
  private void restartIfWanted(String clusterId, Process exited) {
    try {
      Thread.sleep(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    synchronized (this) {
      Launch launch = wanted.get(clusterId);
      if (closing || launch == null || running.get(clusterId) != exited) {
        return;
      }
      log.warn("the cluster-worker of {} (pid {}) exited with {}; restarting it", clusterId, exited.pid(), exited.exitValue());
      try {
        launch(clusterId, launch);
      } catch (IOException e) {
        log.error("could not restart the cluster-worker of {}: {}", clusterId, e.toString());
      }
    }
  }

  @Override
  public synchronized void remove(String clusterId, KubernetesClient cluster) {
    projectedTokens.cancel(clusterId);
    for (String key : List.of(clusterId, agentKey(clusterId))) {
      wanted.remove(key);
      Process process = running.remove(key);
      if (process != null) {
        stop(process);
      }
      // Shared: the one another replica started goes too, as deleting the Deployment stops its pod.
      startedByAnotherReplica(key).ifPresent(LocalProcessWorkerDeployer::stop);
      if (settings.shared()) {
        try {
          Files.deleteIfExists(pidFile(key));
        } catch (IOException e) {
          log.warn("could not remove {}: {}", pidFile(key), e.toString());
        }
      }
    }
  }

  /** The process serving {@code clusterId}, for tests that crash it. */
  public Process process(String clusterId) {
    return running.get(clusterId);
  }

  /** Stops the workers this api started; shared ones stay, for the other replicas (the dev runtime stops them). */
  @Override
  public synchronized void close() {
    closing = true;
    projectedTokens.close();
    wanted.clear();
    if (!settings.shared()) {
      running.values().forEach(LocalProcessWorkerDeployer::stop);
    }
    running.clear();
  }

  private static void stop(Process process) {
    stop(process.toHandle());
  }

  private static void stop(ProcessHandle process) {
    process.destroy();
    try {
      process.onExit().get(15, TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      process.destroyForcibly();
      try {
        process.onExit().get(5, TimeUnit.SECONDS);
      } catch (TimeoutException | ExecutionException | InterruptedException ignored) {
        // it is gone or going
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** The kubelet's part: refreshes a deployed worker's mounted token file from the Secret (atomically). */
  @Override
  public synchronized void tokenSecretChanged(String clusterId, KubernetesClient cluster) {
    Path file = settings.stateDir().resolve(clusterId).resolve(WorkerObjects.TOKEN_KEY);
    if (Files.exists(file)) {
      writeSecretFile(file, operatorToken(cluster));
    }
  }

  private static String operatorToken(KubernetesClient cluster) {
    Secret secret = cluster.secrets().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.TOKEN_SECRET).get();
    if (secret == null) {
      throw new IllegalStateException("Secret " + WorkerObjects.NAMESPACE + "/" + WorkerObjects.TOKEN_SECRET
          + " does not exist yet: install the operator token first");
    }
    if (secret.getData() != null && secret.getData().containsKey(WorkerObjects.TOKEN_KEY)) {
      return new String(Base64.getDecoder().decode(secret.getData().get(WorkerObjects.TOKEN_KEY)), StandardCharsets.UTF_8);
    }
    if (secret.getStringData() != null && secret.getStringData().containsKey(WorkerObjects.TOKEN_KEY)) {
      return secret.getStringData().get(WorkerObjects.TOKEN_KEY);
    }
    throw new IllegalStateException("Secret " + WorkerObjects.TOKEN_SECRET + " has no key " + WorkerObjects.TOKEN_KEY);
  }

  private static void writeSecretFile(Path file, String value) {
    try {
      Files.createDirectories(file.getParent());
      Path tmp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
      try {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
      } catch (UnsupportedOperationException ignored) {
        // not a POSIX file system
      }
      Files.writeString(tmp, value);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("could not write " + file, e);
    }
  }

  private static String javaExecutable() {
    return ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }
}
