package io.gshare.api.bench;

import io.gshare.api.security.TokenKind;
import io.gshare.api.security.Tokens;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Benchmark, not a test: feeds {@code /internal/v1/inventory} the reports of many clusters (by default
 * 50 clusters × 200 nodes × 8 GPUs, as at a 15 s tick) over HTTP with real operator tokens, against
 * the real api on a real PostgreSQL, and prints reports/s, p50/p99 latency, rows written per report
 * when nothing changed, and the CPU the api's request threads used.
 *
 * <p>Run: {@code make bench-inventory} (or {@code ... InventoryBench clusters nodes gpus rounds concurrency}).
 */
public final class InventoryBench {

  private InventoryBench() {}

  public static void main(String[] args) {
    BenchSupport.main(args, InventoryBench::run);
  }

  private static void run(String[] args) throws Exception {
    int clusters = BenchSupport.arg(args, 0, 50);
    int nodes = BenchSupport.arg(args, 1, 200);
    int gpus = BenchSupport.arg(args, 2, 8);
    int rounds = BenchSupport.arg(args, 3, 10);
    int concurrency = BenchSupport.arg(args, 4, 8);

    try (ConfigurableApplicationContext context = BenchSupport.startApi(
        Map.of("spring.datasource.hikari.maximum-pool-size", "16", "server.tomcat.threads.max", "32"))) {
      int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
      JdbcClient jdbc = context.getBean(JdbcClient.class);
      Tokens tokens = context.getBean(Tokens.class);
      List<String> tokensByCluster = new ArrayList<>();
      List<String> reports = new ArrayList<>();
      for (int c = 0; c < clusters; c++) {
        String id = "clu_bench" + c;
        jdbc.sql("insert into clusters (id, name, status) values (:id, :n, 'connected')").param("id", id)
            .param("n", "bench-" + c).update();
        tokensByCluster.add(tokens.sign(TokenKind.INTERNAL, "operator:" + id, null, Duration.ofHours(1)));
        reports.add(report(id, nodes, gpus));
      }
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      ExecutorService pool = Executors.newFixedThreadPool(concurrency);

      long coldStart = System.nanoTime();
      List<Long> cold = round(pool, http, port, reports, tokensByCluster);
      double coldSeconds = (System.nanoTime() - coldStart) / 1e9;

      long rowsBefore = rowsWritten(jdbc);
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      long cpuBefore = requestThreadCpu(threads);
      List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
      long start = System.nanoTime();
      for (int r = 0; r < rounds; r++) {
        latencies.addAll(round(pool, http, port, reports, tokensByCluster));
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      long cpu = requestThreadCpu(threads) - cpuBefore;
      long rows = rowsWritten(jdbc) - rowsBefore;
      pool.shutdown();

      int steadyReports = clusters * rounds;
      double perTick = clusters / 15.0;
      System.out.printf("%ninventory benchmark: %d clusters x %d nodes x %d GPUs (%d GPUs), %d steady rounds, %d clients%n",
          clusters, nodes, gpus, clusters * nodes * gpus, rounds, concurrency);
      System.out.printf("  first reports (all rows inserted): %d reports in %.2f s, p50 %.1f ms%n",
          cold.size(), coldSeconds, BenchSupport.percentileMillis(cold, 50));
      System.out.printf("  steady reports (nothing changed):  %.1f reports/s  (a 15 s tick needs %.1f/s: %.0fx headroom)%n",
          steadyReports / seconds, perTick, steadyReports / seconds / perTick);
      System.out.printf("  latency: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
          BenchSupport.percentileMillis(latencies, 50), BenchSupport.percentileMillis(latencies, 99),
          BenchSupport.maxMillis(latencies));
      System.out.printf("  rows written per unchanged report: %.2f (of %d node + %d GPU rows)%n",
          (double) rows / steadyReports, nodes, nodes * gpus);
      System.out.printf("  api request-thread CPU: %.1f ms per report; at a 15 s tick %.2f%% of one core%n",
          cpu / 1e6 / steadyReports, cpu / 1e9 / steadyReports * perTick * 100);
    }
  }

  private static List<Long> round(ExecutorService pool, HttpClient http, int port, List<String> reports, List<String> tokens)
      throws Exception {
    List<Future<Long>> futures = new ArrayList<>();
    for (int i = 0; i < reports.size(); i++) {
      String body = reports.get(i);
      String token = tokens.get(i);
      futures.add(pool.submit(() -> {
        long t0 = System.nanoTime();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/internal/v1/inventory"))
            .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
          throw new IllegalStateException("inventory answered " + response.statusCode() + ": " + response.body());
        }
        return System.nanoTime() - t0;
      }));
    }
    List<Long> latencies = new ArrayList<>();
    for (Future<Long> f : futures) {
      latencies.add(f.get());
    }
    return latencies;
  }

  /** Inserted + updated + deleted tuples of the inventory tables, from PostgreSQL's own counters. */
  private static long rowsWritten(JdbcClient jdbc) throws InterruptedException {
    Thread.sleep(700); // the statistics collector publishes with a short delay
    return jdbc.sql("""
        select coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) from pg_stat_user_tables
         where relname in ('nodes', 'gpu_devices', 'clusters')
        """).query(Long.class).single();
  }

  private static long requestThreadCpu(ThreadMXBean threads) {
    long total = 0;
    for (long id : threads.getAllThreadIds()) {
      var info = threads.getThreadInfo(id);
      if (info != null && info.getThreadName().startsWith("http-nio")) {
        total += Math.max(0, threads.getThreadCpuTime(id));
      }
    }
    return total;
  }

  private static String report(String clusterId, int nodes, int gpus) {
    StringBuilder json = new StringBuilder("{\"cluster_id\":\"" + clusterId + "\",\"apiserver_version\":\"v1.36.0\",\"nodes\":[");
    for (int n = 0; n < nodes; n++) {
      if (n > 0) {
        json.append(',');
      }
      json.append("{\"hostname\":\"gpu-").append(n).append("\",\"ready\":true,\"schedulable\":true,")
          .append("\"gpu_mode\":\"").append(n % 2 == 0 ? "exclusive" : "fractional").append("\",\"lossless_pause\":false,")
          .append("\"labels\":{\"gpu\":\"on\"},\"capacity\":{\"nvidia.com/gpu\":\"").append(gpus).append("\"},\"gpus\":[");
      for (int g = 0; g < gpus; g++) {
        if (g > 0) {
          json.append(',');
        }
        json.append("{\"uuid\":\"GPU-").append(clusterId).append('-').append(n).append('-').append(g)
            .append("\",\"index\":").append(g)
            .append(",\"model\":\"NVIDIA H100 80GB HBM3\",\"memory_mib\":81559,\"cores_percent\":100,\"split_count\":1,\"healthy\":true}");
      }
      json.append("]}");
    }
    return json.append("]}").toString();
  }
}
