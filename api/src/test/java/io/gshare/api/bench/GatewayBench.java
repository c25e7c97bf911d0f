package io.gshare.api.bench;

import io.gshare.api.security.Callers;
import io.gshare.api.security.InvalidTokenException;
import io.gshare.api.security.TokenKind;
import io.gshare.api.security.Tokens;
import io.gshare.api.support.TemporalDevServerSupport;
import io.gshare.api.temporalgateway.OperatorAuthenticator;
import io.gshare.api.temporalgateway.RememberedTokens;
import io.gshare.api.temporalgateway.TaskTokenSeal;
import io.gshare.api.temporalgateway.TemporalGateway;
import io.gshare.api.temporalgateway.TemporalGatewayProperties;
import io.gshare.workflows.common.TaskQueues;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.RetryOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testing.TemporalDevServer;
import io.temporal.testing.TemporalDevServerOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Benchmark, not a test: what the Temporal gateway costs. The same activity load runs with the cluster's activity
 * worker polling {@code gshare-cluster-clu_bench} straight from the frontend and through one {@link TemporalGateway}
 * in this JVM in front of it (its token as the SDK's API key, as a cluster-worker sends it); the routes alternate
 * within every round so that drift on a shared machine shows.
 *
 * <p>The load: workflows on a control-side worker that polls the frontend directly (as the api's control worker
 * does), each running no-op activities one after the other on the cluster's queue. Each activity notes {@link
 * System#nanoTime()} when it starts; the interval between two consecutive activities of one workflow is one full turn
 * of the loop (the activity's completion answered, the workflow task on the control worker, the next activity
 * scheduled, dispatched to and started by the cluster's worker): it crosses the gateway twice (the completion, the
 * poll that brings the next task) and holds everything the gateway adds. Two shapes per route and round: <b>under
 * load</b>, N workflows at once (activities/s: its activities over its wall time, first start to last result; the
 * CPU of this JVM and of the Temporal server per activity), and <b>alone</b>, one workflow (the latency a single
 * activity sees with nothing queued, against which the ≤ 5 ms p99 goal is read).
 *
 * <p>Routes: direct; the gateway with a stand-in authenticator (its own cost: the extra hop, the policy, the
 * task-token seal); and, unless {@code apiAuth=false}, the gateway with the api's authenticator as {@code
 * TemporalGatewayConfig} builds it ({@link Callers#operator}: the RS256 operator token verified and the cluster looked
 * up in PostgreSQL, the verdict remembered for {@code gshare.temporal-gateway.token-cache}, 5 s), which starts the
 * api (embedded PostgreSQL) in this JVM.
 *
 * <p>The frontend ({@code frontend=}): by default ({@code bench}) the Temporal CLI's dev server that {@code
 * hack/tools.sh} built, started here through the SDK's launcher as {@link TemporalDevServerSupport} starts it, with
 * three dynamic-config values changed so that Temporal's own waits do not hide the gateway's cost. {@code
 * history.transferProcessorMaxPollRPS} 20 → 1000: the dev server has one history shard, whose transfer-queue reader
 * loads at most 20 times a second by default, so every activity and workflow task waits for the next 50 ms slot; a
 * turn is ~100 ms whichever the route, and the few ms the gateway adds vanish inside the wait. {@code
 * matching.numTaskqueue{Read,Write}Partitions} 4 → 1: with the reader unbound and four partitions per queue, an
 * activity now and then waited ~2 s to be dispatched, on either route (all workflows at once under load), which made
 * every p99 ~2 s. {@code frontend=tests} runs on {@link TemporalDevServerSupport}'s server as the integration tests
 * do (Temporal's defaults), {@code HOST:PORT} on a frontend already running (namespace {@code default}).
 *
 * <p>Run: {@code make bench-gateway} (or {@code BENCH_ARGS="workflows=32 activitiesPerWorkflow=20
 * aloneActivities=200 rounds=2 apiAuth=true frontend=bench"}).
 */
public final class GatewayBench {

  static final String CLUSTER = "clu_bench";
  /** The control side's workflow queue: the bench's own, so that no workflow of the api's lands on it. */
  static final String CONTROL_QUEUE = "gshare-bench-gateway-control";
  static final String NAMESPACE = "default";
  /** The dev server's dynamic config that the bench's frontend changes (see the class comment). */
  static final List<String> DYNAMIC_CONFIG = List.of("history.transferProcessorMaxPollRPS=1000",
      "matching.numTaskqueueReadPartitions=1", "matching.numTaskqueueWritePartitions=1");
  static final String USAGE = "usage: GatewayBench [workflows=32] [activitiesPerWorkflow=20] [aloneActivities=200]"
      + " [rounds=2] [apiAuth=true|false] [frontend=bench|tests|HOST:PORT]";

  private GatewayBench() {}

  @WorkflowInterface
  public interface ActivityLoad {
    @WorkflowMethod
    void run(int activities);
  }

  @ActivityInterface
  public interface NoOp {
    void tick(String workflowId, int index);
  }

  /** The control side: K activities on the cluster's queue, one after the other. */
  public static class ActivityLoadImpl implements ActivityLoad {
    @Override
    public void run(int activities) {
      NoOp cluster = Workflow.newActivityStub(NoOp.class, ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.cluster(CLUSTER)).setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(3).build()).build());
      String id = Workflow.getInfo().getWorkflowId();
      for (int i = 0; i < activities; i++) {
        cluster.tick(id, i);
      }
    }
  }

  /** The cluster side: notes when each activity started (and when the server had scheduled it), nothing else. */
  static final class Ticks implements NoOp {
    final Map<String, long[]> startedNanos = new ConcurrentHashMap<>();
    final Map<String, long[]> dispatchMillis = new ConcurrentHashMap<>();
    final AtomicInteger retried = new AtomicInteger();

    @Override
    public void tick(String workflowId, int index) {
      long now = System.nanoTime();
      var info = Activity.getExecutionContext().getInfo();
      if (info.getAttempt() > 1) {
        retried.incrementAndGet();
      }
      startedNanos.get(workflowId)[index] = now;
      dispatchMillis.get(workflowId)[index] = System.currentTimeMillis() - info.getCurrentAttemptScheduledTimestamp();
    }
  }

  enum Route {
    DIRECT("direct to the frontend"),
    GATEWAY("gateway, stand-in authenticator"),
    GATEWAY_API_AUTH("gateway, api's authenticator");

    final String label;

    Route(String label) {
      this.label = label;
    }
  }

  record Args(int workflows, int activities, int alone, int rounds, boolean apiAuth, String frontend) {
    static Args parse(String[] args) {
      Map<String, String> given = new LinkedHashMap<>(Map.of("workflows", "32", "activitiesPerWorkflow", "20",
          "aloneActivities", "200", "rounds", "2", "apiAuth", "true", "frontend", "bench"));
      for (String arg : args) {
        int eq = arg.indexOf('=');
        if (eq <= 0 || !given.containsKey(arg.substring(0, eq))) {
          throw new IllegalArgumentException("unknown argument " + arg);
        }
        given.put(arg.substring(0, eq), arg.substring(eq + 1));
      }
      String auth = given.get("apiAuth");
      if (!auth.equals("true") && !auth.equals("false")) {
        throw new IllegalArgumentException("apiAuth is true or false, not " + auth);
      }
      String frontend = given.get("frontend");
      if (!frontend.equals("bench") && !frontend.equals("tests") && !frontend.matches("[^:\\s]+:\\d+")) {
        throw new IllegalArgumentException("frontend is bench, tests or HOST:PORT, not " + frontend);
      }
      Args parsed = new Args(positive(given, "workflows"), positive(given, "activitiesPerWorkflow"),
          positive(given, "aloneActivities"), positive(given, "rounds"), Boolean.parseBoolean(auth), frontend);
      if (parsed.activities() < 2 || parsed.alone() < 2) {
        throw new IllegalArgumentException("a workflow runs at least 2 activities (latency is between two)");
      }
      return parsed;
    }

    private static int positive(Map<String, String> given, String key) {
      try {
        int value = Integer.parseInt(given.get(key));
        if (value > 0) {
          return value;
        }
      } catch (NumberFormatException e) {
        // below
      }
      throw new IllegalArgumentException(key + " must be a positive integer, not " + given.get(key));
    }
  }

  /** One run of one route: its samples and what it cost. */
  record Measured(int activities, double seconds, List<Long> cycleNanos, List<Long> dispatchNanos, long jvmCpuNanos,
      long serverCpuNanos) {
    double perSecond() {
      return activities / seconds;
    }
  }

  /** What every run shares: the control side, the cluster side's clients per route, the gateway's door. */
  record Rig(WorkflowClient control, Map<Route, WorkflowClient> cluster, Map<Route, OperatorAuthenticator> doors,
      AtomicReference<OperatorAuthenticator> door, ProcessHandle server) {}

  public static void main(String[] args) {
    Args parsed;
    try {
      parsed = Args.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    BenchSupport.main(args, ignored -> run(parsed));
  }

  private static void run(Args args) throws Exception {
    // The dev servers this JVM started stop with it: the api's shutdown hook stops the tests' one only when the api
    // ran, and nothing else would stop the bench's one on a failure.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessHandle.current().descendants()
        .filter(p -> p.info().command().map(c -> c.endsWith("/temporal")).orElse(false))
        .forEach(ProcessHandle::destroy), "gateway-bench-stop-temporal"));
    // The frontend first: the api, when it runs, starts the tests' dev server for its own workers.
    String frontend;
    ProcessHandle server = null;
    if (args.frontend().equals("bench")) {
      TemporalDevServer started = startDevServer();
      frontend = started.getTarget();
      server = childServer(frontend);
    } else if (args.frontend().equals("tests")) {
      frontend = TemporalDevServerSupport.address();
      server = childServer(frontend);
    } else {
      frontend = args.frontend();
    }

    ConfigurableApplicationContext api = null;
    String token = "bench-operator-token";
    OperatorAuthenticator apiAuthenticator = null;
    if (args.apiAuth()) {
      // The api on its embedded PostgreSQL, for its Callers: the cluster registered, its worker's token signed.
      api = BenchSupport.startApi(Map.of("gshare.metering.enabled", "false", "management.server.port", "0"));
      api.getBean(JdbcClient.class).sql("insert into clusters (id, name, status) values (:id, 'bench', 'connected')")
          .param("id", CLUSTER).update();
      token = api.getBean(Tokens.class).sign(TokenKind.INTERNAL, "operator:" + CLUSTER, null, Duration.ofHours(2));
      Callers callers = api.getBean(Callers.class);
      // As TemporalGatewayConfig builds it: verified as /internal does, remembered for gshare.temporal-gateway.token-cache.
      apiAuthenticator = RememberedTokens.of(presented -> {
        try {
          return callers.operator(presented).clusterId();
        } catch (InvalidTokenException e) {
          throw new OperatorAuthenticator.Refused(e.getMessage());
        }
      }, api.getBean(TemporalGatewayProperties.class).tokenCache());
    }
    String apiKey = token;
    OperatorAuthenticator standIn = presented -> {
      if (!apiKey.equals(presented)) {
        throw new OperatorAuthenticator.Refused("token unknown");
      }
      return CLUSTER;
    };
    List<Route> routes = args.apiAuth() ? List.of(Route.DIRECT, Route.GATEWAY, Route.GATEWAY_API_AUTH)
        : List.of(Route.DIRECT, Route.GATEWAY);

    // The control plane's one connection: its workflow worker and client, and the gateway's upstream.
    WorkflowServiceStubs control = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget(frontend).build());
    WorkflowClient controlClient = WorkflowClient.newInstance(control,
        WorkflowClientOptions.newBuilder().setNamespace(NAMESPACE).build());
    WorkerFactory controlWorkers = WorkerFactory.newInstance(controlClient);
    controlWorkers.newWorker(CONTROL_QUEUE).registerWorkflowImplementationTypes(ActivityLoadImpl.class);
    controlWorkers.start();

    AtomicInteger denied = new AtomicInteger();
    AtomicReference<OperatorAuthenticator> door = new AtomicReference<>();
    TaskTokenSeal seal = new TaskTokenSeal("gateway-bench-seal-secret-0123456789".getBytes(StandardCharsets.UTF_8));
    TemporalGateway gateway = TemporalGateway.start(new InetSocketAddress("127.0.0.1", 0), control.futureStub(),
        NAMESPACE, seal, presented -> door.get().clusterId(presented),
        (cluster, method, rule) -> {
          denied.incrementAndGet();
          System.err.println("gateway refused " + method + " of " + cluster + ": " + rule);
        });

    // The cluster's worker: its own connection, to the frontend or to the gateway with its token as API key.
    WorkflowServiceStubs direct = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget(frontend).build());
    WorkflowServiceStubs throughGateway = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
        // Plain HTTP/2 on loopback: with an API key the SDK would otherwise speak TLS (the ingress's, in a cluster).
        .setTarget("127.0.0.1:" + gateway.port()).setEnableHttps(false).addApiKey(() -> apiKey).build());
    WorkflowClientOptions clusterOptions = WorkflowClientOptions.newBuilder().setNamespace(NAMESPACE).build();
    Map<Route, WorkflowClient> clusterClients = new EnumMap<>(Route.class);
    clusterClients.put(Route.DIRECT, WorkflowClient.newInstance(direct, clusterOptions));
    clusterClients.put(Route.GATEWAY, WorkflowClient.newInstance(throughGateway, clusterOptions));
    clusterClients.put(Route.GATEWAY_API_AUTH, clusterClients.get(Route.GATEWAY));
    Map<Route, OperatorAuthenticator> doors = new EnumMap<>(Route.class);
    doors.put(Route.GATEWAY, standIn);
    if (apiAuthenticator != null) {
      doors.put(Route.GATEWAY_API_AUTH, apiAuthenticator);
    }
    Rig rig = new Rig(controlClient, clusterClients, doors, door, server);

    System.out.printf("%ngateway benchmark: %d rounds, the routes alternating in each (%s)%n", args.rounds(),
        String.join("; ", routes.stream().map(r -> r.label).toList()));
    System.out.printf("  under load: %d workflows at once x %d sequential no-op activities on %s; alone: 1 workflow"
        + " x %d%n", args.workflows(), args.activities(), TaskQueues.cluster(CLUSTER), args.alone());
    System.out.printf("  frontend: %s at %s; the gateway in this JVM on 127.0.0.1:%d; the workflows on a control"
        + " worker polling the frontend directly%n", switch (args.frontend()) {
          case "bench" -> "the Temporal CLI's dev server (" + String.join(", ", DYNAMIC_CONFIG) + ")";
          case "tests" -> "the Temporal CLI's dev server as the tests run it (Temporal's defaults)";
          default -> "a given frontend";
        }, frontend, gateway.port());
    System.out.println("  latency per activity: the interval between the starts of two consecutive activities of one"
        + " workflow (one turn: completion, workflow task, next activity dispatched and started; it crosses the"
        + " gateway twice); disp: the server's schedule time of an activity to its start in the worker (ms clock);"
        + " act/s: the activities under load over its wall time (first start to last result); CPU per activity under"
        + " load: this JVM (control and cluster workers, the gateway" + (args.apiAuth() ? ", the idle api" : "")
        + ") and the Temporal server");

    // Warm-up, discarded: the JIT, the connections, the gateway's first calls, the api's first queries.
    for (Route route : routes) {
      measure(rig, route, "warm-up", args.workflows(), args.activities());
      measure(rig, route, "warm-up-alone", 1, Math.min(args.alone(), 50));
    }
    Map<Route, List<Measured>> load = new EnumMap<>(Route.class);
    Map<Route, List<Measured>> alone = new EnumMap<>(Route.class);
    System.out.printf("%n  %-5s %-34s | %-39s | %s%n", "", "", "under load", "alone (nothing queued)");
    System.out.printf("  %-5s %-34s | %7s %7s %7s %7s %7s | %7s %7s %8s%n", "round", "route", "act/s", "p50 ms",
        "p99 ms", "JVM CPU", "srv CPU", "p50 ms", "p99 ms", "disp p50");
    for (int round = 1; round <= args.rounds(); round++) {
      for (Route route : routes) {
        Measured l = measure(rig, route, "r" + round, args.workflows(), args.activities());
        Measured a = measure(rig, route, "r" + round + "-alone", 1, args.alone());
        load.computeIfAbsent(route, r -> new ArrayList<>()).add(l);
        alone.computeIfAbsent(route, r -> new ArrayList<>()).add(a);
        System.out.printf("  %-5d %-34s | %7.1f %7.1f %7.1f %7s %7s | %7.2f %7.2f %8.1f%n", round, route.label,
            l.perSecond(), p(l.cycleNanos(), 50), p(l.cycleNanos(), 99), ms(l.jvmCpuNanos(), l.activities()),
            server == null ? "n/a" : ms(l.serverCpuNanos(), l.activities()), p(a.cycleNanos(), 50),
            p(a.cycleNanos(), 99), p(a.dispatchNanos(), 50));
      }
    }

    Measured baseLoad = pooled(load.get(Route.DIRECT));
    Measured baseAlone = pooled(alone.get(Route.DIRECT));
    System.out.printf("%n  all rounds pooled, against direct (goals: <= 5 ms p99 added alone, >= 90 %% of direct"
        + " throughput under load)%n");
    System.out.printf("  %-34s | %7s %7s %7s %7s %9s | %7s %7s %7s %7s | %s%n", "route", "act/s", "ratio", "p50 ms",
        "p99 ms", "JVM CPU+", "p50 ms", "p99 ms", "+p50", "+p99", "goals");
    for (Route route : routes) {
      Measured l = pooled(load.get(route));
      Measured a = pooled(alone.get(route));
      double ratio = l.perSecond() / baseLoad.perSecond();
      double addedCpu = (l.jvmCpuNanos() / (double) l.activities()
          - baseLoad.jvmCpuNanos() / (double) baseLoad.activities()) / 1e6;
      double addedP50 = p(a.cycleNanos(), 50) - p(baseAlone.cycleNanos(), 50);
      double addedP99 = p(a.cycleNanos(), 99) - p(baseAlone.cycleNanos(), 99);
      boolean isDirect = route == Route.DIRECT;
      System.out.printf("  %-34s | %7.1f %6.1f%% %7.1f %7.1f %9s | %7.2f %7.2f %7s %7s | %s%n", route.label,
          l.perSecond(), 100 * ratio, p(l.cycleNanos(), 50), p(l.cycleNanos(), 99),
          isDirect ? "-" : String.format("%+.2fms", addedCpu), p(a.cycleNanos(), 50), p(a.cycleNanos(), 99),
          isDirect ? "-" : String.format("%+.2f", addedP50), isDirect ? "-" : String.format("%+.2f", addedP99),
          isDirect ? "-" : "p99 added " + (addedP99 <= 5 ? "met" : "MISSED") + ", throughput "
              + (ratio >= 0.9 ? "met" : "MISSED"));
    }
    System.out.printf("  calls the gateway refused: %d%n", denied.get());

    controlWorkers.shutdown();
    controlWorkers.awaitTermination(10, TimeUnit.SECONDS);
    gateway.close();
    direct.shutdownNow();
    throughGateway.shutdownNow();
    control.shutdownNow();
    if (api != null) {
      api.close();
    }
  }

  /** Runs {@code workflows} workflows of {@code activities} activities at once; the cluster side on {@code route}. */
  private static Measured measure(Rig rig, Route route, String round, int workflows, int activities) {
    rig.door().set(rig.doors().get(route));
    Ticks ticks = new Ticks();
    List<String> ids = new ArrayList<>();
    for (int w = 0; w < workflows; w++) {
      String id = "gateway-bench-" + round + "-" + route.name().toLowerCase() + "-" + w;
      ids.add(id);
      ticks.startedNanos.put(id, new long[activities]);
      ticks.dispatchMillis.put(id, new long[activities]);
    }
    // Only this route's worker polls the cluster's queue while the run lasts.
    WorkerFactory cluster = WorkerFactory.newInstance(rig.cluster().get(route));
    cluster.newWorker(TaskQueues.cluster(CLUSTER)).registerActivitiesImplementations(ticks);
    cluster.start();

    long jvmCpu0 = jvmCpuNanos();
    long serverCpu0 = cpuNanos(rig.server());
    long t0 = System.nanoTime();
    for (String id : ids) {
      WorkflowClient.start(rig.control().newWorkflowStub(ActivityLoad.class,
          WorkflowOptions.newBuilder().setTaskQueue(CONTROL_QUEUE).setWorkflowId(id).build())::run, activities);
    }
    for (String id : ids) {
      try {
        rig.control().newUntypedWorkflowStub(id).getResult(5, TimeUnit.MINUTES, Void.class);
      } catch (TimeoutException e) {
        throw new IllegalStateException("workflow " + id + " did not end within 5 minutes", e);
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    long jvmCpu = jvmCpuNanos() - jvmCpu0;
    long serverCpu = cpuNanos(rig.server()) - serverCpu0;
    cluster.shutdown();
    cluster.awaitTermination(30, TimeUnit.SECONDS);

    List<Long> cycles = new ArrayList<>();
    List<Long> dispatch = new ArrayList<>();
    for (String id : ids) {
      long[] starts = ticks.startedNanos.get(id);
      for (int i = 1; i < activities; i++) {
        cycles.add(starts[i] - starts[i - 1]);
      }
      for (long millis : ticks.dispatchMillis.get(id)) {
        dispatch.add(millis * 1_000_000);
      }
    }
    if (ticks.retried.get() > 0) {
      System.out.printf("  (%s %s: %d activity attempts were retries)%n", round, route.label, ticks.retried.get());
    }
    return new Measured(workflows * activities, seconds, cycles, dispatch, jvmCpu, serverCpu);
  }

  /**
   * The Temporal CLI's dev server as {@link TemporalDevServerSupport} starts it (the binary {@code hack/tools.sh}
   * built, downloads disabled, loopback), without the Web UI, its transfer-queue reader not held to 20 loads/s.
   */
  private static TemporalDevServer startDevServer() throws Exception {
    Path cli = TemporalDevServerSupport.cli();
    Path log = Path.of("target", "temporal-dev-server-gateway-bench-" + ProcessHandle.current().pid() + ".log")
        .toAbsolutePath();
    Files.createDirectories(log.getParent());
    TemporalDevServer server = TemporalDevServer.start(TemporalDevServerOptions.newBuilder()
        .setExistingPath(cli.toString())
        .setDownloadEnabled(false)
        .setIp("127.0.0.1")
        .setPort(TemporalDevServerSupport.freePort())
        .setUiEnabled(false)
        .setLogLevel("warn")
        .setLogFile(log.toString())
        .setStartupTimeout(Duration.ofSeconds(90))
        .setExtraArgs(DYNAMIC_CONFIG.stream().flatMap(v -> Stream.of("--dynamic-config-value", v)).toList())
        .build());
    return server;
  }

  /** The dev server listening on {@code target}: a child process of this JVM (for its CPU time), or null. */
  private static ProcessHandle childServer(String target) {
    String port = target.substring(target.lastIndexOf(':') + 1);
    return ProcessHandle.current().descendants()
        .filter(p -> p.info().command().map(c -> c.endsWith("/temporal")).orElse(false))
        .filter(p -> p.info().arguments().map(a -> List.of(a).contains(port)).orElse(false))
        .findFirst().orElse(null);
  }

  private static double p(List<Long> nanos, int percentile) {
    return BenchSupport.percentileMillis(nanos, percentile);
  }

  private static String ms(long nanos, int activities) {
    return String.format("%.2f", nanos / 1e6 / activities);
  }

  private static Measured pooled(List<Measured> runs) {
    List<Long> cycles = new ArrayList<>();
    List<Long> dispatch = new ArrayList<>();
    int activities = 0;
    double seconds = 0;
    long jvm = 0;
    long srv = 0;
    for (Measured m : runs) {
      cycles.addAll(m.cycleNanos());
      dispatch.addAll(m.dispatchNanos());
      activities += m.activities();
      seconds += m.seconds();
      jvm += m.jvmCpuNanos();
      srv += m.serverCpuNanos();
    }
    return new Measured(activities, seconds, cycles, dispatch, jvm, srv);
  }

  private static long jvmCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static long cpuNanos(ProcessHandle process) {
    return process == null ? 0 : process.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
  }
}
