package io.gshare.dev;

import io.temporal.testing.TemporalDevServer;
import io.temporal.testing.TemporalDevServerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The Temporal CLI's dev server ({@code temporal server start-dev}) as a child process, started through
 * the SDK's launcher with downloads disabled: the binary is the one {@code hack/tools.sh} built from its
 * Go module. A real Temporal server (Schedules, visibility, DescribeTaskQueue) with its Web UI, both on
 * loopback only; with a database file it keeps running workflows and Schedules across restarts.
 */
final class EmbeddedTemporal implements AutoCloseable {

  private final TemporalDevServer server;
  private final int uiPort;

  /**
   * @param database the SQLite file to keep state in, or null to keep it in memory
   * @param logFile where the server writes its log, or null for the launcher's in-memory tail
   */
  EmbeddedTemporal(Path cli, int port, int uiPort, Path database, Path logFile) {
    if (!Files.isExecutable(cli)) {
      throw new IllegalStateException("the Temporal CLI is not at " + cli + ": run hack/tools.sh (make tools) to build it");
    }
    TemporalDevServerOptions.Builder options = TemporalDevServerOptions.newBuilder()
        .setExistingPath(cli.toAbsolutePath().toString())
        .setDownloadEnabled(false)
        .setIp("127.0.0.1")
        .setPort(port)
        .setUiEnabled(true)
        .setUiPort(uiPort)
        .setLogLevel("warn")
        .setStartupTimeout(Duration.ofSeconds(60));
    if (database != null) {
      options.setDatabaseFilename(database.toAbsolutePath().toString());
    }
    if (logFile != null) {
      options.setLogFile(logFile.toAbsolutePath().toString());
    }
    this.server = TemporalDevServer.start(options.build());
    this.uiPort = uiPort;
  }

  String address() {
    return server.getTarget();
  }

  String uiUrl() {
    return "http://127.0.0.1:" + uiPort;
  }

  @Override
  public void close() {
    server.close();
  }
}
