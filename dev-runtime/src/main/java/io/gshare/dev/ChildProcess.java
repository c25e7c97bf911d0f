package io.gshare.dev;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A gShare process (api, cluster-worker) the dev runtime started and must stop. */
final class ChildProcess implements AutoCloseable {

  /** Spring Boot's launcher that reads {@code loader.path}; every executable jar carries it. */
  static final String PROPERTIES_LAUNCHER = "org.springframework.boot.loader.launch.PropertiesLauncher";

  private final String name;
  private final Process process;

  private ChildProcess(String name, Process process) {
    this.name = name;
    this.process = process;
  }

  /**
   * Starts {@code java -jar jar args} with {@code env} added to this process's environment.
   *
   * @param logDir where its output goes; null inherits this terminal
   */
  static ChildProcess startJar(String name, Path jar, List<String> jvmOptions, List<String> args,
      Map<String, String> env, Path logDir) {
    return startJar(name, jar, List.of(), jvmOptions, args, env, logDir);
  }

  /**
   * Starts the Spring Boot jar with {@code extraClassPath} (jars or directories) on its class path too, through
   * the jar's own {@code PropertiesLauncher} ({@code loader.path}): how the api gets the dev-only local deployer.
   */
  static ChildProcess startJar(String name, Path jar, List<Path> extraClassPath, List<String> jvmOptions,
      List<String> args, Map<String, String> env, Path logDir) {
    List<String> command = new ArrayList<>();
    command.add(javaExecutable());
    command.addAll(jvmOptions);
    if (extraClassPath.isEmpty()) {
      command.add("-jar");
      command.add(jar.toAbsolutePath().toString());
    } else {
      command.add("-Dloader.path=" + String.join(",", extraClassPath.stream()
          .map(p -> p.toAbsolutePath().toString()).toList()));
      command.add("-cp");
      command.add(jar.toAbsolutePath().toString());
      command.add(PROPERTIES_LAUNCHER);
    }
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(env);
    try {
      if (logDir == null) {
        builder.inheritIO();
      } else {
        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      }
      return new ChildProcess(name, builder.start());
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + name + " from " + jar, e);
    }
  }

  String name() {
    return name;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  Process process() {
    return process;
  }

  /** SIGTERM, a grace period for graceful shutdown, then SIGKILL. */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** Kills it at once, as a crash would (tests use it). */
  void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String javaExecutable() {
    return ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }
}
