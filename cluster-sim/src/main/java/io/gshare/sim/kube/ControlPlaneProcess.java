package io.gshare.sim.kube;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One process of the local control plane (etcd, the apiserver, ...), its output in a log file of its own. */
final class ControlPlaneProcess {

  private final String name;
  private final Process process;
  private final Path log;

  private ControlPlaneProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  static ControlPlaneProcess start(String name, Path binary, List<String> arguments, Path logDir) {
    List<String> command = new ArrayList<>();
    command.add(binary.toString());
    command.addAll(arguments);
    Path log = logDir.resolve(name + ".log");
    try {
      Files.createDirectories(logDir);
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      // Nothing of the test JVM's proxies or kubeconfig leaks into the control plane.
      builder.environment().keySet().removeIf(k -> k.equalsIgnoreCase("https_proxy") || k.equalsIgnoreCase("http_proxy")
          || k.equals("KUBECONFIG"));
      return new ControlPlaneProcess(name, builder.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + binary, e);
    }
  }

  String name() {
    return name;
  }

  Path log() {
    return log;
  }

  boolean alive() {
    return process.isAlive();
  }

  /** Fails with the end of the log when the process has exited. */
  void requireAlive() {
    if (!process.isAlive()) {
      throw new IllegalStateException(name + " exited with " + process.exitValue() + "; the end of " + log + ":\n"
          + tail(40));
    }
  }

  /** SIGTERM, then SIGKILL after {@code graceSeconds}. */
  void stop(int graceSeconds) {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(graceSeconds, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }
}
