package io.gshare.api.support;

import io.temporal.testing.TemporalDevServer;
import io.temporal.testing.TemporalDevServerOptions;
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

/**
 * A real Temporal server for the integration tests: the Temporal CLI's dev server (Schedules,
 * visibility, DescribeTaskQueue, the Web UI), in memory, on loopback, once per test JVM. The binary
 * is the one {@code hack/tools.sh} built ({@code gshare.temporal.cli}, set by the failsafe config);
 * the SDK's launcher starts it with downloads disabled.
 */
public final class TemporalDevServerSupport {

  private static TemporalDevServer server;
  private static int uiPort;

  private TemporalDevServerSupport() {}

  /**
   * The Temporal CLI that {@code hack/tools.sh} built: {@code gshare.temporal.cli}, else one level up from the api
   * module (failsafe), else here (the repository root, {@code make bench-*}).
   */
  public static Path cli() {
    String named = System.getProperty("gshare.temporal.cli");
    Path cli = (named != null ? Path.of(named)
        : Files.isExecutable(Path.of("../.tools/bin/temporal")) ? Path.of("../.tools/bin/temporal")
        : Path.of(".tools/bin/temporal")).toAbsolutePath().normalize();
    if (!Files.isExecutable(cli)) {
      throw new IllegalStateException("the Temporal CLI is not at " + cli + ": run make tools (hack/tools.sh) first");
    }
    return cli;
  }

  public static synchronized String address() {
    if (server == null) {
      Path cli = cli();
      uiPort = freePort();
      server = TemporalDevServer.start(TemporalDevServerOptions.newBuilder()
          .setExistingPath(cli.toString())
          .setDownloadEnabled(false)
          .setIp("127.0.0.1")
          .setPort(freePort())
          .setUiEnabled(true)
          .setUiPort(uiPort)
          .setLogLevel("warn")
          // One log per test JVM: the integration tests run in two forks, each with a dev server of its own.
          .setLogFile(Path.of("target", "temporal-dev-server-" + ProcessHandle.current().pid() + ".log")
              .toAbsolutePath().toString())
          .setStartupTimeout(Duration.ofSeconds(90))
          .build());
      ShutdownOrder.afterSpringContexts(server::close);
    }
    return server.getTarget();
  }

  /** The dev server's Web UI. */
  public static synchronized String uiUrl() {
    address();
    return "http://127.0.0.1:" + uiPort;
  }

  public static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A page of the Web UI as a browser gets it: its status and body. */
  public record UiPage(int status, String body) {}

  /** Fetches {@code link}, a page of the dev server's Web UI (an operation's {@code temporal_ui_url}). */
  public static UiPage uiPage(String link) throws IOException, InterruptedException {
    HttpResponse<String> page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(link)).build(),
        HttpResponse.BodyHandlers.ofString());
    return new UiPage(page.statusCode(), page.body());
  }
}
