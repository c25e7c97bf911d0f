package io.gshare.dev.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * CPU time of the dev runtime's processes, read from {@code /proc/<pid>/stat} (utime + stime, plus the
 * cutime + cstime of children that already exited, such as PostgreSQL backends that closed). Linux only;
 * elsewhere every figure is zero and the benchmark says so.
 */
final class ProcessCpu {

  /** A group of processes measured together, e.g. PostgreSQL's postmaster and its backends. */
  record Group(String name, Predicate<String> commandLine) {}

  private static final long TICKS_PER_SECOND = clockTicks();

  /** What this JVM (the simulator and the load generator) is called in the figures. */
  static final String BENCH_JVM = "bench JVM (simulator + load)";

  private final List<Group> groups;

  ProcessCpu(List<Group> groups) {
    this.groups = groups;
  }

  static boolean available() {
    return Files.isReadable(Path.of("/proc/self/stat"));
  }

  /** CPU milliseconds used so far by each group's processes (and their exited children). */
  Map<String, Double> snapshot() {
    Map<String, Double> millis = new LinkedHashMap<>();
    groups.forEach(g -> millis.put(g.name(), 0.0));
    if (!available()) {
      return millis;
    }
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path proc : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
        String cmdline = commandLine(proc);
        if (cmdline == null) {
          continue;
        }
        for (Group group : groups) {
          if (group.commandLine().test(cmdline)) {
            millis.merge(group.name(), cpuMillis(proc), Double::sum);
            break;
          }
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list /proc", e);
    }
    millis.put(BENCH_JVM, cpuMillis(Path.of("/proc", String.valueOf(ProcessHandle.current().pid()))));
    return millis;
  }

  static Map<String, Double> minus(Map<String, Double> after, Map<String, Double> before) {
    Map<String, Double> delta = new LinkedHashMap<>();
    after.forEach((k, v) -> delta.put(k, v - before.getOrDefault(k, 0.0)));
    return delta;
  }

  private static String commandLine(Path proc) {
    try {
      return new String(Files.readAllBytes(proc.resolve("cmdline"))).replace('\0', ' ').trim();
    } catch (IOException e) {
      return null; // gone since the listing
    }
  }

  /** utime + stime + cutime + cstime of {@code /proc/<pid>/stat}, in milliseconds. */
  private static double cpuMillis(Path proc) {
    try {
      String stat = Files.readString(proc.resolve("stat"));
      // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = 0;
      for (int field = 14; field <= 17; field++) {
        ticks += Long.parseLong(fields[field - 3]);
      }
      return ticks * 1000.0 / TICKS_PER_SECOND;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static long clockTicks() {
    try {
      Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(getconf.getInputStream().readAllBytes()).trim();
      return getconf.waitFor() == 0 ? Long.parseLong(out) : 100;
    } catch (IOException | RuntimeException e) {
      return 100;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 100;
    }
  }

  /** The dev runtime's processes, by what their command lines say, and this JVM. */
  static ProcessCpu devRuntime() {
    return new ProcessCpu(List.of(
        new Group("api", c -> c.contains("gshare-api.jar")),
        new Group("cluster-worker", c -> c.contains("gshare-cluster-worker.jar")),
        new Group("Temporal server", c -> c.contains("temporal") && c.contains("start-dev")),
        // The postmaster (a path ending in /postgres) and its backends ("postgres: ...").
        new Group("PostgreSQL", c -> c.startsWith("postgres") || c.matches("^\\S*/postgres( .*)?$"))));
  }
}
