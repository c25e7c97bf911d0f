package io.gshare.sim.kube;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One process of the local control plane (etcd, the apiserver, ...), its output in a log file of its own, and a
 * watchdog that ends it if this JVM dies without stopping it: a test JVM that surefire halts, or that is killed,
 * runs no shutdown hook, and a control plane left behind holds half a gigabyte and a core's share of the machine
 * for every later test.
 */
final class ControlPlaneProcess {

  /**
   * Waits while both the JVM ($1) and the process ($2) live; if the JVM went first, SIGTERM, then SIGKILL after 10 s.
   * A shell, not a Java thread: it must outlive the JVM.
   */
  private static final String WATCHDOG = "while kill -0 \"$1\" 2>/dev/null && kill -0 \"$2\" 2>/dev/null; do sleep 2; done;"
      + " if kill -0 \"$2\" 2>/dev/null; then kill -TERM \"$2\"; sleep 10; kill -KILL \"$2\" 2>/dev/null; fi";

  private final String name;
  private final Process process;
  private final Process watchdog;
  private static final Logger LOG = LoggerFactory.getLogger(ControlPlaneProcess.class);

  private final Path log;

  private ControlPlaneProcess(String name, Process process, Process watchdog, Path log) {
    this.name = name;
    this.process = process;
    this.watchdog = watchdog;
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
      Process process = builder.start();
      Process watchdog = new ProcessBuilder("/bin/sh", "-c", WATCHDOG, "gshare-watchdog",
          String.valueOf(ProcessHandle.current().pid()), String.valueOf(process.pid()))
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      return new ControlPlaneProcess(name, process, watchdog, log);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + binary, e);
    }
  }

  String name() {
    return name;
  }

  long pid() {
    return process.pid();
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
    watchdog.destroy();
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(graceSeconds, TimeUnit.SECONDS)) {
        LOG.warn("{} did not stop within {} s of SIGTERM; killing it (the end of its log:\n{})", name, graceSeconds,
            tail(10));
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
