package io.gshare.dev.bench;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.IngressBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.client.GshareClient;
import io.gshare.client.catalogue.Catalogue;
import io.gshare.client.credit.Credits;
import io.gshare.client.session.NewSession;
import io.gshare.client.user.Users;
import io.gshare.dev.DevRuntime;
import io.gshare.dev.DevRuntimeOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Benchmark, not a test: drives the dev runtime (real api and cluster-worker processes, embedded
 * PostgreSQL and Temporal, a simulated cluster with 16 fractional A100 nodes) with a ramp of users —
 * by default 8, then 32, 64 and 128 at once — each running M session lifecycles: create, wait until
 * Running, pause, resume, terminate. Per step it prints lifecycles per second, p50/p99 of each command
 * as the API answers it, create→pod (API accept to the pod object: the control plane's part) and
 * create→Running, Temporal history events per lifecycle, and the CPU milliseconds per lifecycle of
 * each process (api, cluster-worker, Temporal server, PostgreSQL, this JVM with the simulator; from
 * {@code /proc/<pid>/stat}). Then the raw minimum: the same Kubernetes calls and database writes made
 * directly, its wall time and CPU per lifecycle, and the ratios.
 *
 * <p>Run: {@code make bench-sessions BENCH_ARGS="8,32,64,128 2"} (user steps, lifecycles per user).
 */
public final class SessionBench {

  private static final String[] COMMANDS = {"create", "pause", "resume", "terminate"};

  private SessionBench() {}

  public static void main(String[] args) {
    try {
      List<Integer> steps = args.length > 0
          ? Arrays.stream(args[0].split(",")).map(String::trim).map(Integer::parseInt).toList()
          : List.of(8, 32, 64, 128);
      int perUser = args.length > 1 ? Integer.parseInt(args[1]) : 2;
      if (steps.isEmpty() || steps.stream().anyMatch(n -> n < 1) || perUser < 1) {
        System.err.println("usage: SessionBench [users,users,... [lifecyclesPerUser]]  (e.g. 8,32,64,128 2)");
        System.exit(2);
      }
      run(steps, perUser);
      System.exit(0);
    } catch (NumberFormatException e) {
      System.err.println("usage: SessionBench [users,users,... [lifecyclesPerUser]]  (e.g. 8,32,64,128 2)");
      System.exit(2);
    } catch (Exception e) {
      e.printStackTrace();
      System.exit(1);
    }
  }

  /** A cluster big enough for 128 concurrent slices: 16 nodes of 8 A100s, 10 slices each. */
  static Path seed() throws IOException {
    StringBuilder yaml = new StringBuilder("kubernetesVersion: v1.36.0\nnodes:\n");
    for (int i = 0; i < 16; i++) {
      yaml.append("  - name: sim-a100-").append(i).append("\n    gpuMode: fractional\n")
          .append("    gpus: { model: \"NVIDIA A100-SXM4-40GB\", count: 8, memoryMib: 40960, splitCount: 10 }\n");
    }
    Path file = Files.createTempFile("gshare-bench-seed", ".yaml");
    Files.writeString(file, yaml);
    return file;
  }

  static void run(List<Integer> steps, int perUser) throws Exception {
    DevRuntimeOptions options = DevRuntimeOptions.parse(new String[] {
        "--http-port", String.valueOf(freePort()), "--temporal-port", String.valueOf(freePort()),
        "--temporal-ui-port", String.valueOf(freePort()), "--management-port", String.valueOf(freePort()),
        "--postgres-port", String.valueOf(freePort()), "--simulator-port", String.valueOf(freePort()),
        "--seed", seed().toString(),
        // The bench makes its own offering, image and users; the demo data would only be in the way.
        "--no-demo",
        "--api-jar", System.getProperty("gshare.dev.api-jar", "api/target/gshare-api.jar"),
        "--worker-jar", System.getProperty("gshare.dev.worker-jar", "cluster-worker/target/gshare-cluster-worker.jar"),
        "--local-deployer-jar", System.getProperty("gshare.dev.local-deployer-jar",
            "local-deployer/target/gshare-local-deployer.jar"),
        "--log-dir", Files.createTempDirectory("gshare-bench-logs").toString()}, Map.of());
    ProcessCpu cpu = ProcessCpu.devRuntime();
    if (!ProcessCpu.available()) {
      System.out.println("(no /proc here: CPU figures are zero)");
    }
    try (DevRuntime runtime = DevRuntime.start(options)) {
      GshareClient api = new GshareClient(URI.create(runtime.apiUrl()), runtime.adminToken())
          .userAgent("gshare-session-bench").timeout(Duration.ofMinutes(2));
      String offering = api.catalogue().createOffering(new Catalogue.NewOffering("bench-slice",
          "NVIDIA A100-SXM4-40GB", "fractional", null, 4096, 10, BigDecimal.ONE, null)).id();
      String image = api.catalogue().createImage(new Catalogue.NewImage("bench",
          "registry.example.com/gshare/jupyter:bench", null, null, null, null)).id();
      int most = steps.stream().mapToInt(Integer::intValue).max().orElseThrow();
      List<String> tokens = new ArrayList<>();
      for (int i = 0; i < most; i++) {
        String user = api.users().create(new Users.NewUser("bench" + i + "@example.com", null, null, null)).id();
        api.credits().grant(new Credits.Grant(user, new BigDecimal("1000"), null, null));
        tokens.add(api.users().issueToken(user, new Users.NewToken(null, null)).token());
      }
      KubernetesClient k8s = runtime.clusters().get(0).newClient();
      WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(
          WorkflowServiceStubsOptions.newBuilder().setTarget(runtime.temporalAddress()).build());
      WorkflowClient client = WorkflowClient.newInstance(stubs);

      System.out.printf("%nsession benchmark: user steps %s x %d lifecycles each (create, Running, pause, resume, terminate)%n"
          + "on the dev runtime (2-core figures depend on the machine; everything shares it)%n", steps, perUser);
      List<String> summary = new ArrayList<>();
      Map<String, Double> lastPerLifecycle = null;
      for (int users : steps) {
        Step step = step(api, k8s, tokens.subList(0, users), perUser, offering, image, cpu);
        long events = 0;
        for (String id : step.sessions()) {
          events += client.fetchHistory("session-" + id).getHistory().getEventsCount();
        }
        int lifecycles = users * perUser;
        double rate = lifecycles / step.seconds();
        System.out.printf("%n  %d users: %d lifecycles in %.1f s = %.2f lifecycles/s; %.0f Temporal history events per lifecycle%n",
            users, lifecycles, step.seconds(), rate, (double) events / lifecycles);
        for (String command : COMMANDS) {
          System.out.printf("    %-9s p50 %5.0f ms  p99 %5.0f ms%n", command, pct(step.latency().get(command), 50),
              pct(step.latency().get(command), 99));
        }
        System.out.printf("    create -> pod object p50 %.0f ms, p99 %.0f ms; create -> Running p50 %.0f ms, p99 %.0f ms"
                + " (Running includes the simulator's deliberate pod start)%n",
            pct(step.toPod(), 50), pct(step.toPod(), 99), pct(step.toRunning(), 50), pct(step.toRunning(), 99));
        Map<String, Double> perLifecycle = new LinkedHashMap<>();
        step.cpu().forEach((process, millis) -> perLifecycle.put(process, millis / lifecycles));
        System.out.printf("    CPU per lifecycle: %s%n", format(perLifecycle));
        summary.add(String.format("%d users: %.2f lifecycles/s, create p99 %.0f ms, create->pod p99 %.0f ms, %.0f ms CPU/lifecycle",
            users, rate, pct(step.latency().get("create"), 99), pct(step.toPod(), 99), total(perLifecycle)));
        lastPerLifecycle = perLifecycle;
      }
      stubs.shutdown();

      Map<String, Double> before = cpu.snapshot();
      double raw = rawLifecycleMillis(k8s, runtime.dbUrl());
      Map<String, Double> rawCpu = ProcessCpu.minus(cpu.snapshot(), before);
      Map<String, Double> rawPerLifecycle = new LinkedHashMap<>();
      // Only what the raw minimum itself runs: the simulator (this JVM) and PostgreSQL; the idle api,
      // worker and Temporal server are not part of it.
      for (String process : List.of(ProcessCpu.BENCH_JVM, "PostgreSQL")) {
        rawPerLifecycle.put(process, rawCpu.getOrDefault(process, 0.0) / RAW_ROUNDS);
      }
      System.out.printf("%n  raw minimum (the same Kubernetes calls and database writes, direct and sequential): %.0f ms;"
          + " CPU per lifecycle: %s%n", raw, format(rawPerLifecycle));
      double controlPlane = total(lastPerLifecycle);
      double rawTotal = total(rawPerLifecycle);
      System.out.printf("  CPU per lifecycle at the last step: %.0f ms, %.1fx the raw minimum's %.0f ms%n",
          controlPlane, controlPlane / rawTotal, rawTotal);
      System.out.println();
      System.out.println("summary:");
      summary.forEach(line -> System.out.println("  " + line));
      System.out.printf("  CPU per lifecycle %.1fx the raw minimum%n", controlPlane / rawTotal);
      k8s.close();
    }
  }

  /** What one step of the ramp measured. */
  record Step(double seconds, List<String> sessions, Map<String, List<Long>> latency, List<Long> toPod,
      List<Long> toRunning, Map<String, Double> cpu) {}

  static Step step(GshareClient admin, KubernetesClient k8s, List<String> tokens, int perUser, String offering, String image,
      ProcessCpu cpu) throws Exception {
    Map<String, List<Long>> latency = new LinkedHashMap<>();
    for (String command : COMMANDS) {
      latency.put(command, Collections.synchronizedList(new ArrayList<>()));
    }
    List<Long> toPod = Collections.synchronizedList(new ArrayList<>());
    List<Long> toRunning = Collections.synchronizedList(new ArrayList<>());
    List<String> sessions = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(tokens.size());
    Map<String, Double> cpuBefore = cpu.snapshot();
    long start = System.nanoTime();
    List<Future<?>> done = new ArrayList<>();
    for (String token : tokens) {
      GshareClient api = admin.as(token);
      done.add(pool.submit(() -> {
        for (int i = 0; i < perUser; i++) {
          long t0 = System.nanoTime();
          String id = api.sessions().create(new NewSession(offering, image, null, null, null)).session().id();
          latency.get("create").add(System.nanoTime() - t0);
          sessions.add(id);
          String pod = "gshare-" + id.replace('_', '-');
          while (k8s.pods().inNamespace("gshare-sessions").withName(pod).get() == null) {
            Thread.sleep(20);
          }
          toPod.add(System.nanoTime() - t0);
          while (!"running".equals(api.sessions().get(id).session().state())) {
            Thread.sleep(50);
          }
          toRunning.add(System.nanoTime() - t0);
          timed(latency.get("pause"), () -> api.sessions().pause(id));
          timed(latency.get("resume"), () -> api.sessions().resume(id));
          timed(latency.get("terminate"), () -> api.sessions().terminate(id));
        }
        return null;
      }));
    }
    for (Future<?> f : done) {
      f.get();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Map<String, Double> used = ProcessCpu.minus(cpu.snapshot(), cpuBefore);
    pool.shutdown();
    return new Step(seconds, sessions, latency, toPod, toRunning, used);
  }

  interface Call {
    Object run() throws Exception;
  }

  private static void timed(List<Long> into, Call call) throws Exception {
    long t0 = System.nanoTime();
    call.run();
    into.add(System.nanoTime() - t0);
  }

  private static double total(Map<String, Double> millis) {
    return millis.values().stream().mapToDouble(Double::doubleValue).sum();
  }

  private static String format(Map<String, Double> millis) {
    StringBuilder out = new StringBuilder();
    millis.forEach((process, ms) -> out.append(out.length() == 0 ? "" : ", ").append(process).append(' ')
        .append(String.format("%.0f ms", ms)));
    return out.append(String.format("; total %.0f ms", total(millis))).toString();
  }

  static final int RAW_ROUNDS = 10;

  /** Pod, Service and Ingress created then deleted twice (create, pause, resume, end), and the rows those steps write. */
  static double rawLifecycleMillis(KubernetesClient k8s, String jdbcUrl) throws Exception {
    int rounds = RAW_ROUNDS;
    long start = System.nanoTime();
    try (Connection db = DriverManager.getConnection(jdbcUrl)) {
      db.setAutoCommit(true);
      try (var s = db.createStatement()) {
        s.execute("create temporary table raw_rows (id text, v text)");
      }
      for (int r = 0; r < rounds; r++) {
        for (int phase = 0; phase < 2; phase++) {
          String name = "raw-" + r + "-" + phase;
          k8s.pods().inNamespace("gshare-sessions").resource(new PodBuilder().withNewMetadata().withName(name).endMetadata()
              .withNewSpec().addNewContainer().withName("c").withImage("x").endContainer().endSpec().build()).create();
          k8s.services().inNamespace("gshare-sessions").resource(new ServiceBuilder().withNewMetadata().withName(name)
              .endMetadata().withNewSpec().addNewPort().withPort(80).endPort().endSpec().build()).create();
          k8s.network().v1().ingresses().inNamespace("gshare-sessions").resource(
              // A real apiserver refuses an Ingress with neither rules nor a default backend.
              new IngressBuilder().withNewMetadata().withName(name).endMetadata()
                  .withNewSpec().withNewDefaultBackend().withNewService().withName(name).withNewPort().withNumber(80)
                  .endPort().endService().endDefaultBackend().endSpec().build()).create();
          k8s.pods().inNamespace("gshare-sessions").withName(name).get();
          k8s.network().v1().ingresses().inNamespace("gshare-sessions").withName(name).delete();
          k8s.services().inNamespace("gshare-sessions").withName(name).delete();
          k8s.pods().inNamespace("gshare-sessions").withName(name).delete();
        }
        // session row, allocation, ~8 state writes, 2 windows opened and closed, 2 settlements, 2 releases
        try (PreparedStatement insert = db.prepareStatement("insert into raw_rows values (?, ?)")) {
          for (int w = 0; w < 18; w++) {
            insert.setString(1, "row" + r);
            insert.setString(2, "w" + w);
            insert.executeUpdate();
          }
        }
      }
    }
    return (System.nanoTime() - start) / 1e6 / rounds;
  }

  private static double pct(List<Long> values, int p) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1)) / 1e6;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
