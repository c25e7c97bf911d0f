package io.gshare.api.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import io.gshare.api.security.TokenKind;
import io.gshare.api.security.Tokens;
import io.gshare.api.user.UserService;
import io.gshare.client.ApiResponse;
import io.gshare.client.GshareClient;
import io.gshare.workflows.common.FailureTypes;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.session.CheckpointImage;
import io.gshare.workflows.session.MeteringWorkflow;
import io.gshare.workflows.session.PodPhase;
import io.gshare.workflows.session.PodState;
import io.gshare.workflows.session.SessionClusterActivities;
import io.gshare.workflows.session.SessionPod;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.worker.WorkerFactory;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Benchmark, not a test: the control plane at scale. The api (embedded PostgreSQL, the Temporal CLI's
 * dev server) in one JVM; C clusters × N nodes × G fractional A100s reported through the real
 * {@code /internal/v1/inventory} with operator tokens; S sessions created through
 * {@code POST /api/v1/sessions} by concurrent clients, each run by its real session workflow on the api's
 * control worker. The cluster side of those workflows is a stand-in ({@link StandInClusterActivities}):
 * activities on each cluster's task queue that answer as a cluster-worker on the simulator would (pod
 * Running at once), so no pods exist. It prints, per figure, what it measured and a one-line summary:
 * create rate; the per-tick session status and inventory reports (p99, rows written when unchanged);
 * the metering sweep over S open windows (duration, transactions, drift); the api's heap after GC per
 * 1,000 sessions; and walking {@code GET /api/v1/sessions} page by page as an admin.
 *
 * <p>Run: {@code make bench-scale} (or {@code ... ScaleBench clusters nodes gpus sessions clients rounds sweeps}).
 */
public final class ScaleBench {

  /** A100 kinds: cluster c has model c % models, so one placement decision weighs one cluster's cards. */
  private static final List<String> MODELS = List.of("NVIDIA A100-SXM4-40GB", "NVIDIA A100-PCIE-40GB",
      "NVIDIA A100-SXM4-80GB", "NVIDIA A100-PCIE-80GB");
  private static final ObjectMapper JSON = new ObjectMapper();

  private ScaleBench() {}

  public static void main(String[] args) {
    BenchSupport.main(args, ScaleBench::run);
  }

  private static void run(String[] args) throws Exception {
    int clusters = BenchSupport.arg(args, 0, 4);
    int nodes = BenchSupport.arg(args, 1, 250);
    int gpus = BenchSupport.arg(args, 2, 8);
    int sessions = BenchSupport.arg(args, 3, 10_000);
    int clients = BenchSupport.arg(args, 4, 64);
    int rounds = BenchSupport.arg(args, 5, 20);
    int sweeps = BenchSupport.arg(args, 6, 2);
    int models = Math.min(MODELS.size(), Math.min(clusters, BenchSupport.arg(args, 7, 4)));
    // Slices per card: enough that every session fits, at least 2.
    int split = Math.max(2, (int) Math.ceil(sessions / (double) (clusters * nodes * gpus)));
    List<String> summary = new ArrayList<>();

    // Hikari checks a connection idle for 500 ms with an empty query, itself a transaction to PostgreSQL's
    // counters; without that check the bench's own reads and flushes are exactly the transactions it subtracts.
    System.setProperty("com.zaxxer.hikari.aliveBypassWindowMs", String.valueOf(TimeUnit.HOURS.toMillis(3)));
    // The Temporal dev server logs to target/ of the working directory (the repository root under make).
    Files.createDirectories(Path.of("target"));
    // The sweep is started by the bench (the Schedule's workflow, on the same control worker), not every minute.
    try (ConfigurableApplicationContext context = BenchSupport.startApi(Map.of(
        "spring.datasource.hikari.maximum-pool-size", "24", "server.tomcat.threads.max", "200",
        "gshare.metering.enabled", "false", "management.server.port", "0",
        // The bench measures the api at full speed: its clients and simulated workers are not throttled.
        "gshare.rate-limits.user-commands-per-second", "1000000",
        "gshare.rate-limits.cluster-reports-per-second", "1000000"))) {
      Api api = new Api(new GshareClient(URI.create("http://127.0.0.1:"
          + context.getEnvironment().getProperty("local.server.port")), null).timeout(Duration.ofMinutes(5)));
      JdbcClient jdbc = context.getBean(JdbcClient.class);
      dataSource = context.getBean(HikariDataSource.class);
      Tokens tokens = context.getBean(Tokens.class);
      WorkflowClient temporal = context.getBean(WorkflowClient.class);
      String admin = context.getBean(UserService.class).bootstrapSuperAdmin("scale-admin@example.com").token();

      // Clusters as attach leaves them, each with the stand-in worker on its queue.
      List<String> clusterIds = new ArrayList<>();
      Map<String, String> operatorTokens = new LinkedHashMap<>();
      Map<String, String> inventory = new LinkedHashMap<>();
      WorkerFactory standIn = WorkerFactory.newInstance(temporal);
      for (int c = 0; c < clusters; c++) {
        String id = "clu_scale" + c;
        jdbc.sql("""
            insert into clusters (id, name, status, session_domain) values (:id, :n, 'connected', :d)
            """).param("id", id).param("n", "scale-" + c).param("d", "scale-" + c + ".example.com").update();
        clusterIds.add(id);
        operatorTokens.put(id, tokens.sign(TokenKind.INTERNAL, "operator:" + id, null, Duration.ofHours(3)));
        inventory.put(id, inventoryReport(id, MODELS.get(c % models), nodes, gpus, split));
        standIn.newWorker(TaskQueues.cluster(id)).registerActivitiesImplementations(new StandInClusterActivities());
      }
      standIn.start();
      long coldStart = System.nanoTime();
      for (String id : clusterIds) {
        api.post("/internal/v1/inventory", operatorTokens.get(id), inventory.get(id));
      }
      System.out.printf("%nscale benchmark: %d clusters x %d nodes x %d GPUs (%d GPUs of %d A100 models, %d slices each),"
          + " %d sessions, %d clients%n", clusters, nodes, gpus, clusters * nodes * gpus, models, split, sessions, clients);
      System.out.printf("  first inventory reports (all rows inserted): %d in %.1f s%n", clusters, (System.nanoTime() - coldStart) / 1e9);

      // A worker's inventory tick keeps the clusters fresh for placement while sessions are created.
      ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
      ticker.scheduleWithFixedDelay(() -> clusterIds.forEach(id -> {
        try {
          api.post("/internal/v1/inventory", operatorTokens.get(id), inventory.get(id));
        } catch (Exception e) {
          System.err.println("inventory tick: " + e);
        }
      }), 15, 15, TimeUnit.SECONDS);

      List<String> offerings = new ArrayList<>();
      for (int m = 0; m < models; m++) {
        offerings.add(api.post("/api/v1/offerings", admin, """
            {"name":"scale-slice-%d","gpu_model":"%s","mode":"fractional","gpumem_mib":4096,"gpucores_percent":10,
             "price_per_hour":1.5}""".formatted(m, MODELS.get(m))).get("id").asText());
      }
      String image = api.post("/api/v1/images", admin,
          "{\"name\":\"scale\",\"reference\":\"registry.example.com/gshare/jupyter:scale\"}").get("id").asText();
      int users = Math.max(1, Math.min(100, sessions / 100));
      List<String> userTokens = new ArrayList<>();
      for (int u = 0; u < users; u++) {
        String user = api.post("/api/v1/users", admin, "{\"email\":\"scale" + u + "@example.com\"}").get("id").asText();
        api.post("/api/v1/credits/grants", admin, "{\"user_id\":\"" + user + "\",\"amount\":1000000}");
        userTokens.add(api.post("/api/v1/users/" + user + "/tokens", admin, "{}").get("token").asText());
      }

      long heapBefore = heapAfterGc();

      // Sessions through the API, by concurrent clients.
      List<String> bodies = offerings.stream()
          .map(o -> "{\"offering_id\":\"" + o + "\",\"image_id\":\"" + image + "\"}").toList();
      ExecutorService pool = Executors.newFixedThreadPool(clients);
      List<Long> createLatencies = Collections.synchronizedList(new ArrayList<>());
      AtomicInteger next = new AtomicInteger();
      AtomicInteger createRetries = new AtomicInteger();
      long createStart = System.nanoTime();
      List<Future<?>> creators = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        creators.add(pool.submit(() -> {
          for (int i = next.getAndIncrement(); i < sessions; i = next.getAndIncrement()) {
            long t0 = System.nanoTime();
            for (int attempt = 1; ; attempt++) {
              try {
                api.post("/api/v1/sessions", userTokens.get(i % users), bodies.get(i % models));
                break;
              } catch (IllegalStateException e) {
                // A 500 rolled the create back (nothing placed): a client tries again.
                if (attempt == 5 || !e.getMessage().contains("answered 500")) {
                  throw e;
                }
                createRetries.incrementAndGet();
              }
            }
            createLatencies.add(System.nanoTime() - t0);
            if ((i + 1) % 1000 == 0) {
              System.out.printf("    %d sessions created (%.0f s)%n", i + 1, (System.nanoTime() - createStart) / 1e9);
            }
          }
          return null;
        }));
      }
      for (Future<?> f : creators) {
        f.get();
      }
      double createSeconds = (System.nanoTime() - createStart) / 1e9;
      long runningBy = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      int running;
      while ((running = countRunning(jdbc)) < sessions) {
        if (System.nanoTime() > runningBy) {
          throw new IllegalStateException("only " + running + " of " + sessions + " sessions running after 10 minutes");
        }
        Thread.sleep(1000);
      }
      double runningSeconds = (System.nanoTime() - createStart) / 1e9;
      System.out.printf("  create: %d sessions in %.1f s (%.1f/s), all running after %.1f s; p50 %.0f ms, p99 %.0f ms;"
              + " %d answered 500 and were sent again%n", sessions, createSeconds, sessions / createSeconds, runningSeconds,
          BenchSupport.percentileMillis(createLatencies, 50), BenchSupport.percentileMillis(createLatencies, 99),
          createRetries.get());
      summary.add(String.format("create: %.1f sessions/s through POST /api/v1/sessions, p99 %.0f ms",
          sessions / createSeconds, BenchSupport.percentileMillis(createLatencies, 99)));

      long heapAfter = heapAfterGc();
      double mibPer1000 = (heapAfter - heapBefore) / 1048576.0 / (sessions / 1000.0);
      System.out.printf("  api heap after GC: %.1f MiB with 0 sessions, %.1f MiB with %d: %.2f MiB per 1,000 sessions"
              + " (%.1f KiB per session)%n", heapBefore / 1048576.0, heapAfter / 1048576.0, sessions, mibPer1000,
          mibPer1000 * 1024 / 1000);
      summary.add(String.format("api heap: %.2f MiB per 1,000 sessions (target <= 1 MiB per session: %s)", mibPer1000,
          mibPer1000 / 1000 <= 1 ? "met" : "missed"));
      ticker.shutdownNow();

      // Whatever is due since the windows opened; the measured sweeps come a minute after it.
      long t0 = System.nanoTime();
      int caughtUp = sweep(temporal);
      long lastSweep = System.nanoTime();
      System.out.printf("  catch-up sweep: %d entries in %.2f s%n", caughtUp, (lastSweep - t0) / 1e9);

      // Status reports: every session pod of a cluster, as the worker sends each tick.
      Map<String, String> statusReports = statusReports(jdbc, clusterIds);
      List<Long> firstStatus = timedReports(api, "/internal/v1/sessions/status", statusReports, operatorTokens, 1);
      long sessionRowsBefore = rowsWritten(jdbc, "sessions");
      List<Long> status = timedReports(api, "/internal/v1/sessions/status", statusReports, operatorTokens, rounds);
      long sessionRows = rowsWritten(jdbc, "sessions") - sessionRowsBefore;
      double statusRows = (double) sessionRows / (clusters * rounds);
      int perCluster = sessions / clusters;
      System.out.printf("  session status report (~%d sessions per cluster), first (phases recorded): p50 %.0f ms%n",
          perCluster, BenchSupport.percentileMillis(firstStatus, 50));
      System.out.printf("  session status report unchanged, %d reports: p50 %.0f ms, p99 %.0f ms, max %.0f ms;"
              + " rows written per report %.2f%n", status.size(), BenchSupport.percentileMillis(status, 50),
          BenchSupport.percentileMillis(status, 99), BenchSupport.maxMillis(status), statusRows);
      summary.add(String.format("session status report (%d sessions): p99 %.0f ms, %.2f rows written per unchanged report",
          perCluster, BenchSupport.percentileMillis(status, 99), statusRows));

      // Inventory reports: the worker's other per-tick report.
      long inventoryRowsBefore = rowsWritten(jdbc, "nodes", "gpu_devices", "clusters");
      List<Long> inv = timedReports(api, "/internal/v1/inventory", inventory, operatorTokens, rounds);
      double inventoryRows = (double) (rowsWritten(jdbc, "nodes", "gpu_devices", "clusters") - inventoryRowsBefore)
          / (clusters * rounds);
      System.out.printf("  inventory report unchanged (%d nodes x %d GPUs), %d reports: p50 %.0f ms, p99 %.0f ms;"
              + " rows written per report %.2f%n", nodes, gpus, inv.size(), BenchSupport.percentileMillis(inv, 50),
          BenchSupport.percentileMillis(inv, 99), inventoryRows);
      summary.add(String.format("inventory report (%d nodes, %d GPUs): p99 %.0f ms, %.2f rows written per unchanged report",
          nodes, nodes * gpus, BenchSupport.percentileMillis(inv, 99), inventoryRows));

      listFigures(api, admin, sessions, summary);
      sweepFigures(jdbc, temporal, sessions, sweeps, lastSweep, summary);

      System.out.println();
      System.out.println("scale summary:");
      summary.forEach(line -> System.out.println("  " + line));
      standIn.shutdownNow();
      pool.shutdownNow();
    }
  }

  /**
   * The metering sweep over every open window, as the Schedule runs it: a minute after the last sweep
   * every window has one more full minute due. Then two sweeps at once, then the ledger checked against
   * the windows. {@code lastSweep}: when the previous sweep ended (System.nanoTime()).
   */
  private static void sweepFigures(JdbcClient jdbc, WorkflowClient temporal, int sessions, int sweeps, long lastSweep,
      List<String> summary) throws Exception {
    List<Double> seconds = new ArrayList<>();
    List<Long> transactions = new ArrayList<>();
    List<Long> rawTransactions = new ArrayList<>();
    List<Integer> charged = new ArrayList<>();
    double idlePerSecond = 0;
    for (int r = 0; r < sweeps; r++) {
      long idle0 = xactCommits(jdbc);
      long i0 = System.nanoTime();
      sleepUntil(lastSweep + TimeUnit.SECONDS.toNanos(61));
      idlePerSecond = (xactCommits(jdbc) - idle0 - 1) / ((System.nanoTime() - i0) / 1e9);
      long x0 = xactCommits(jdbc);
      long w0 = System.nanoTime();
      long t0 = System.nanoTime();
      charged.add(sweep(temporal));
      lastSweep = System.nanoTime();
      seconds.add((lastSweep - t0) / 1e9);
      long counted = xactCommits(jdbc) - x0 - 1; // less the counter query's own
      rawTransactions.add(counted);
      // less the api's background work over the same time (its rate measured while idle, just before)
      transactions.add(Math.max(0, counted - Math.round(idlePerSecond * (System.nanoTime() - w0) / 1e9)));
    }
    sleepUntil(lastSweep + TimeUnit.SECONDS.toNanos(61));
    CompletableFuture<Integer> first = CompletableFuture.supplyAsync(() -> sweep(temporal));
    CompletableFuture<Integer> second = CompletableFuture.supplyAsync(() -> sweep(temporal));
    int doubledFirst = first.get();
    int doubledSecond = second.get();

    // Drift: every window's charges against its billed minutes × the per-minute price.
    record Drift(long windows, long minutes, long entries, BigDecimal billed, BigDecimal expected, long duplicates) {}
    Drift drift = jdbc.sql("""
        with w as (
          select session_id, round(price_per_hour / 60, 6) as per_minute,
                 round(extract(epoch from charged_through - opened_at) / 60)::bigint as minutes
            from billing_windows where closed_at is null),
        l as (
          select session_id, count(*) as entries, -sum(amount) as billed, count(*) - count(distinct bucket_start) as dup
            from credit_ledger where kind = 'charge' group by session_id)
        select count(*), coalesce(sum(w.minutes), 0), coalesce(sum(l.entries), 0), coalesce(sum(l.billed), 0),
               coalesce(sum(w.minutes * w.per_minute), 0), coalesce(sum(l.dup), 0)
          from w left join l using (session_id)
        """).query((rs, n) -> new Drift(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getBigDecimal(4),
            rs.getBigDecimal(5), rs.getLong(6))).single();
    long windowsOff = jdbc.sql("""
        select count(*) from billing_windows w
         where closed_at is null
           and (select count(*) from credit_ledger l where l.session_id = w.session_id and l.kind = 'charge')
               <> round(extract(epoch from w.charged_through - w.opened_at) / 60)::bigint
        """).query(Long.class).single();
    long balancesOff = jdbc.sql("""
        select count(*) from credit_accounts a
         where a.balance <> (select coalesce(sum(amount), 0) from credit_ledger l where l.account_id = a.id)
        """).query(Long.class).single();
    BigDecimal driftAmount = drift.billed().subtract(drift.expected());

    double max = Collections.max(seconds);
    long maxTx = Collections.max(transactions);
    System.out.printf("  metering sweep, %d open windows, a minute after the last sweep, %d sweeps: entries booked %s;"
            + " duration %s s (max %.2f s); transactions %s (counted %s, less the api's background of %.2f/s while idle)%n",
        sessions, sweeps, charged, seconds.stream().map(d -> String.format("%.2f", d)).toList(), max, transactions,
        rawTransactions, idlePerSecond);
    System.out.printf("  two sweeps at once, a minute later: %d + %d entries booked%n", doubledFirst, doubledSecond);
    System.out.printf("  drift: %d windows, %d billed minutes, %d charge entries, %d duplicate buckets, %d windows whose"
            + " entries differ from their minutes; charged %s vs minutes x price %s (drift %s); %d balances off their"
            + " ledger%n", drift.windows(), drift.minutes(), drift.entries(), drift.duplicates(), windowsOff,
        drift.billed().toPlainString(), drift.expected().toPlainString(), driftAmount.toPlainString(), balancesOff);
    summary.add(String.format("metering sweep (%d windows): %.2f s max, %d transactions max (target <= 5 s and <= 10: %s);"
            + " drift %s credits, %d duplicate charges, %d windows off", sessions, max, maxTx,
        max <= 5 && maxTx <= 10 ? "met" : "missed", driftAmount.toPlainString(), drift.duplicates(), windowsOff));
  }

  private static void sleepUntil(long nanoTime) throws InterruptedException {
    long left = nanoTime - System.nanoTime();
    if (left > 0) {
      TimeUnit.NANOSECONDS.sleep(left);
    }
  }

  /** One run of the metering-sweep workflow on the control queue; returns what it charged. */
  private static int sweep(WorkflowClient temporal) {
    return temporal.newWorkflowStub(MeteringWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId("metering-bench-" + System.nanoTime()).setTaskQueue(TaskQueues.CONTROL).build()).sweep();
  }

  /** An admin walks every session, page by page, following {@code next}. */
  private static void listFigures(Api api, String admin, int sessions, List<String> summary) throws Exception {
    for (int limit : new int[] {100, 1000}) {
      List<Long> pages = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      String after = null;
      long t0 = System.nanoTime();
      do {
        long p0 = System.nanoTime();
        JsonNode page = api.get("/api/v1/sessions?limit=" + limit
            + (after == null ? "" : "&after=" + URLEncoder.encode(after, StandardCharsets.UTF_8)), admin);
        pages.add(System.nanoTime() - p0);
        page.get("items").forEach(s -> seen.add(s.get("id").asText()));
        after = page.hasNonNull("next") ? page.get("next").asText() : null;
      } while (after != null);
      double walk = (System.nanoTime() - t0) / 1e9;
      System.out.printf("  GET /api/v1/sessions as admin, limit %d: %d pages, %d distinct sessions in %.2f s;"
              + " page p50 %.1f ms, p99 %.1f ms%n", limit, pages.size(), seen.size(), walk,
          BenchSupport.percentileMillis(pages, 50), BenchSupport.percentileMillis(pages, 99));
      summary.add(String.format("session list, limit %d: page p99 %.1f ms, all %d sessions in %d pages, %.2f s", limit,
          BenchSupport.percentileMillis(pages, 99), seen.size(), pages.size(), walk));
      if (seen.size() != sessions) {
        System.out.printf("  (the walk saw %d of %d sessions)%n", seen.size(), sessions);
      }
    }
  }

  /** One report per cluster per round, the clusters' reports sent side by side as their workers would. */
  private static List<Long> timedReports(Api api, String path, Map<String, String> reports, Map<String, String> tokens,
      int rounds) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(reports.size());
    List<Long> latencies = new ArrayList<>();
    try {
      for (int r = 0; r < rounds; r++) {
        List<Future<Long>> round = new ArrayList<>();
        reports.forEach((cluster, report) -> round.add(pool.submit(() -> {
          long t0 = System.nanoTime();
          api.post(path, tokens.get(cluster), report);
          return System.nanoTime() - t0;
        })));
        for (Future<Long> f : round) {
          latencies.add(f.get());
        }
      }
    } finally {
      pool.shutdown();
    }
    return latencies;
  }

  /** Every session pod of each cluster, Running where its placement put it. */
  private static Map<String, String> statusReports(JdbcClient jdbc, List<String> clusterIds) throws Exception {
    Map<String, String> reports = new LinkedHashMap<>();
    for (String cluster : clusterIds) {
      List<Map<String, Object>> pods = jdbc.sql("select id, node_hostname from sessions where cluster_id = :c order by id")
          .param("c", cluster)
          .query((rs, n) -> {
            Map<String, Object> pod = new LinkedHashMap<>();
            pod.put("session_id", rs.getString(1));
            pod.put("phase", "Running");
            pod.put("pod_ip", podIp(rs.getString(1)));
            pod.put("node", rs.getString(2));
            return pod;
          }).list();
      reports.put(cluster, JSON.writeValueAsString(Map.of("sessions", pods, "complete", true)));
    }
    return reports;
  }

  private static String podIp(String sessionId) {
    int h = sessionId.hashCode() & 0xffff;
    return "10.244." + (h >> 8) + "." + (h & 0xff);
  }

  private static int countRunning(JdbcClient jdbc) {
    return jdbc.sql("select count(*) from sessions where state = 'running'").query(Integer.class).single();
  }

  /** Inserted + updated + deleted tuples of these tables, from PostgreSQL's own counters. */
  private static long rowsWritten(JdbcClient jdbc, String... tables) throws Exception {
    flushStatistics(jdbc);
    return jdbc.sql("""
        select coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) from pg_stat_user_tables where relname = any(:t)
        """).param("t", tables).query(Long.class).single();
  }

  /**
   * Committed transactions of this database so far (every statement outside a transaction is one), less
   * the flush's own; the query reading them is one more, counted in the next reading.
   */
  private static long xactCommits(JdbcClient jdbc) throws Exception {
    int flushed = flushStatistics(jdbc);
    flushedSoFar += flushed;
    return jdbc.sql("select xact_commit from pg_stat_database where datname = current_database()")
        .query(Long.class).single() - flushedSoFar;
  }

  private static long flushedSoFar;

  /**
   * PostgreSQL 14's backends send their counters to the statistics collector only when they go idle at
   * least 500 ms after their last send, so a pooled connection's last writes can stay unsent: after
   * 600 ms of quiet, one statement on every pooled connection sends them. Returns how many statements.
   */
  private static int flushStatistics(JdbcClient jdbc) throws Exception {
    Thread.sleep(600);
    HikariDataSource pool = dataSource;
    List<Connection> held = new ArrayList<>();
    try {
      for (int i = 0; i < pool.getMaximumPoolSize(); i++) {
        Connection c = pool.getConnection();
        held.add(c);
        try (Statement s = c.createStatement()) {
          s.execute("select 1");
        }
      }
    } finally {
      for (Connection c : held) {
        c.close();
      }
    }
    Thread.sleep(600); // the collector's turn
    return held.size();
  }

  private static HikariDataSource dataSource;

  private static long heapAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static String inventoryReport(String clusterId, String model, int nodes, int gpus, int split) {
    StringBuilder json = new StringBuilder("{\"cluster_id\":\"" + clusterId + "\",\"apiserver_version\":\"v1.36.0\",\"nodes\":[");
    for (int n = 0; n < nodes; n++) {
      if (n > 0) {
        json.append(',');
      }
      json.append("{\"hostname\":\"gpu-").append(n).append("\",\"ready\":true,\"schedulable\":true,")
          .append("\"gpu_mode\":\"fractional\",\"lossless_pause\":false,")
          .append("\"labels\":{\"gpu\":\"on\"},\"capacity\":{\"nvidia.com/gpu\":\"").append(gpus * split).append("\"},\"gpus\":[");
      for (int g = 0; g < gpus; g++) {
        if (g > 0) {
          json.append(',');
        }
        json.append("{\"uuid\":\"GPU-").append(clusterId).append('-').append(n).append('-').append(g)
            .append("\",\"index\":").append(g).append(",\"model\":\"").append(model)
            .append("\",\"memory_mib\":40960,\"cores_percent\":100,\"split_count\":").append(split)
            .append(",\"healthy\":true}");
      }
      json.append("]}");
    }
    return json.append("]}").toString();
  }

  /**
   * The cluster side of a session workflow, answering as the cluster-worker does on the simulator when
   * nothing goes wrong (pod Running at once on its placed node), without pods: the simulator holds every
   * object in memory and its kubelet walks every pod each tick, which 10,000 sessions on 2 cores outgrow.
   */
  static final class StandInClusterActivities implements SessionClusterActivities {

    @Override
    public void ensureObjects(SessionPod pod) {}

    @Override
    public PodState startPod(SessionPod pod) {
      return new PodState(PodPhase.RUNNING, podIp(pod.sessionId()), pod.placement().hostname());
    }

    @Override
    public PodState awaitRunning(String sessionId) {
      return new PodState(PodPhase.RUNNING, podIp(sessionId), null);
    }

    @Override
    public PodState podState(String sessionId) {
      return new PodState(PodPhase.RUNNING, podIp(sessionId), null);
    }

    @Override
    public String checkpoint(String sessionId) {
      throw ApplicationFailure.newNonRetryableFailure("no checkpoints in the stand-in", FailureTypes.CHECKPOINT_IMPOSSIBLE);
    }

    @Override
    public String buildCheckpointImage(CheckpointImage checkpoint) {
      throw ApplicationFailure.newNonRetryableFailure("no checkpoints in the stand-in", FailureTypes.CHECKPOINT_IMPOSSIBLE);
    }

    @Override
    public void deleteObjects(String sessionId) {}

    @Override
    public void applyRoute(SessionPod pod) {}
  }

  /** JSON over HTTP against the api, through the API's client; any non-2xx answer is an error. */
  record Api(GshareClient client) {

    JsonNode post(String path, String token, String body) throws Exception {
      return send("POST", path, token, body);
    }

    JsonNode get(String path, String token) throws Exception {
      return send("GET", path, token, null);
    }

    private JsonNode send(String method, String path, String token, String body) {
      ApiResponse response = client.as(token).exchange(method, path, body);
      if (response.status() / 100 != 2) {
        throw new IllegalStateException(method + " " + path + " answered " + response.status() + ": " + response.text());
      }
      return response.json();
    }
  }
}
