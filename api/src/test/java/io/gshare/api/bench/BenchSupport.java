package io.gshare.api.bench;

import io.gshare.api.GshareApiApplication;
import io.gshare.api.support.EmbeddedPostgresSupport;
import io.gshare.api.support.TemporalDevServerSupport;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/** What the api benchmarks share: a main that exits with the outcome, arguments, the api itself, percentiles. */
final class BenchSupport {

  @FunctionalInterface
  interface Body {
    void run(String[] args) throws Exception;
  }

  private BenchSupport() {}

  /** Runs the benchmark and exits 0, or prints the failure and exits 1 (the embedded servers keep the JVM up). */
  static void main(String[] args, Body body) {
    try {
      body.run(args);
      System.exit(0);
    } catch (Exception e) {
      e.printStackTrace();
      System.exit(1);
    }
  }

  static int arg(String[] args, int index, int fallback) {
    return args.length > index ? Integer.parseInt(args[index]) : fallback;
  }

  /**
   * The api on a fresh embedded PostgreSQL and the embedded Temporal server, on a free port, quiet.
   * Command-line properties, so they outrank application.yaml's environment defaults; {@code extra}
   * adds or overrides.
   */
  static ConfigurableApplicationContext startApi(Map<String, String> extra) throws Exception {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("spring.datasource.url", EmbeddedPostgresSupport.newDatabase());
    properties.put("spring.datasource.username", "postgres");
    properties.put("spring.datasource.password", "");
    properties.put("gshare.temporal.address", TemporalDevServerSupport.address());
    properties.put("gshare.security.key-dir", Files.createTempDirectory("gshare-bench-keys").toString());
    properties.put("gshare.cluster-worker.image", "registry.example.com/gshare/cluster-worker:bench");
    properties.put("server.port", "0");
    properties.put("logging.level.root", "WARN");
    properties.putAll(extra);
    return new SpringApplication(GshareApiApplication.class).run(properties.entrySet().stream()
        .map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new));
  }

  /** The p-th percentile of nanosecond samples, in milliseconds. */
  static double percentileMillis(List<Long> nanos, int p) {
    List<Long> sorted = new ArrayList<>(nanos);
    Collections.sort(sorted);
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1)) / 1e6;
  }

  static double maxMillis(List<Long> nanos) {
    return Collections.max(nanos) / 1e6;
  }
}
