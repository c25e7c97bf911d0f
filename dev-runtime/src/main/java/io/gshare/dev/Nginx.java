package io.gshare.dev;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One nginx process of the dev runtime (Debian's, from {@code make tools}) with a configuration of ours, in a prefix
 * directory of its own ({@code logs/}, {@code tmp/}, {@code nginx.conf}): what the simulated clusters' ingress
 * ({@link DevIngress}) and the api replicas' front ({@link ApiFront}) both run.
 */
final class Nginx implements AutoCloseable {

  private final Process process;
  private final Path dir;
  private final String role;

  private Nginx(Process process, Path dir, String role) {
    this.process = process;
    this.dir = dir;
    this.role = role;
  }

  /**
   * Writes {@code config} and starts nginx on it, or fails saying why.
   *
   * @param role what it is, in the words of an error ("the api replicas' front")
   * @param whenMissing what to do when the binary is not there, appended to the error
   */
  static Nginx start(Path binary, Path dir, String config, String role, String whenMissing) throws IOException {
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException("nginx is not at " + binary + ": " + whenMissing);
    }
    for (String sub : List.of("logs", "tmp")) {
      Files.createDirectories(dir.resolve(sub));
    }
    Path conf = dir.resolve("nginx.conf");
    Files.writeString(conf, config);
    Process process = new ProcessBuilder(binary.toAbsolutePath().toString(), "-p", dir.toString(), "-c",
        conf.toString(), "-e", logs(dir).resolve("error.log").toString())
        .redirectErrorStream(true).redirectOutput(logs(dir).resolve("nginx.out").toFile()).start();
    return new Nginx(process, dir, role);
  }

  /** Waits until it accepts connections on {@code 127.0.0.1:port}; fails naming its logs when it exits or does not. */
  void awaitListening(int port, Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("nginx (" + role + ") exited with code " + process.exitValue() + "; see "
            + logs(dir));
      }
      try (Socket socket = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException e) {
        try {
          Thread.sleep(100);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(interrupted);
        }
      }
    }
    throw new IllegalStateException("nginx (" + role + ") did not listen on 127.0.0.1:" + port + " within "
        + timeout.toSeconds() + "s; see " + logs(dir));
  }

  Path logs() {
    return logs(dir);
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Stops it (SIGTERM, then SIGKILL after 10 s). */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private static Path logs(Path dir) {
    return dir.resolve("logs");
  }
}
