package io.gshare.api.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus server (Debian's {@code prometheus}, which {@code hack/tools.sh} unpacks into
 * {@code .tools/bin}) on loopback, scraping one target every second with a configuration written here. For
 * the idle reaper's tests; the observability tests reuse it.
 */
public final class PrometheusServer implements AutoCloseable {

  private final Process process;
  private final int port;
  private final Path dir;

  private PrometheusServer(Process process, int port, Path dir) {
    this.process = process;
    this.port = port;
    this.dir = dir;
  }

  /** The binary: {@code -Dgshare.prometheus.bin}, else the repository's {@code .tools/bin/prometheus}. */
  static Path binary() {
    String configured = System.getProperty("gshare.prometheus.bin");
    Path bin = configured != null && !configured.isBlank() ? Path.of(configured)
        : Path.of("..", ".tools", "bin", "prometheus").toAbsolutePath().normalize();
    if (!Files.isExecutable(bin)) {
      throw new IllegalStateException("no Prometheus at " + bin + ": run hack/tools.sh (make tools) first");
    }
    return bin;
  }

  /**
   * Starts Prometheus scraping {@code target} ({@code http://host:port/path}) every second under
   * {@code job}, and waits until it is ready.
   */
  public static PrometheusServer scraping(String job, URI target) {
    try {
      Path dir = Files.createTempDirectory("gshare-prometheus");
      int port;
      try (ServerSocket socket = new ServerSocket(0)) {
        port = socket.getLocalPort();
      }
      Path config = dir.resolve("prometheus.yml");
      Files.writeString(config, """
          global:
            scrape_interval: 1s
            evaluation_interval: 1s
          scrape_configs:
            - job_name: %s
              metrics_path: %s
              static_configs:
                - targets: ["%s"]
          """.formatted(job, target.getPath(), target.getHost() + ":" + target.getPort()));
      Process process = new ProcessBuilder(binary().toString(), "--config.file=" + config,
          "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
          "--storage.tsdb.retention.time=1h", "--log.level=warn")
          .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
      PrometheusServer server = new PrometheusServer(process, port, dir);
      Runtime.getRuntime().addShutdownHook(new Thread(server::close));
      server.awaitReady();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String url() {
    return "http://127.0.0.1:" + port;
  }

  private void awaitReady() throws IOException {
    HttpClient http = HttpClient.newHttpClient();
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("Prometheus exited: " + Files.readString(dir.resolve("prometheus.log")));
      }
      try {
        HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(url() + "/-/ready"))
            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
        if (ready.statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // still starting
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new IllegalStateException("Prometheus not ready within 30 s: " + Files.readString(dir.resolve("prometheus.log")));
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
