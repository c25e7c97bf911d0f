package io.gshare.localdeployer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the local-process deployer runs the cluster-worker jar (a worker, a usage agent), which the dev runtime and
 * the tests do dozens of times a run: from the jar unpacked once by Spring Boot's jar tools ({@code
 * -Djarmode=tools extract}: the classes on a plain class path instead of the nested-jar launcher), and with the
 * class-data archive (CDS, {@code -XX:SharedArchiveFile}) that the first such process wrote at its exit of every class
 * it had loaded, so later ones map their classes instead of loading and verifying them. Measured on this machine
 * (idle, the worker to its first log line): 3.1 s and 3.6 s of CPU from the jar, 2.0 s and 2.5 s unpacked, 0.9 s and
 * 1.2 s with the archive. The unpacked copy lives in the temporary directory, named by the jar's path, size and time,
 * so a rebuilt jar gets a new one. Whatever fails here (no jar tools in the jar, a full disk) falls back to {@code
 * -jar} on the jar itself, saying so; a stale or broken archive is refused by the JVM, which then runs without it.
 * Not for production: a pod runs its image's own class path.
 */
public final class JarLaunch {

  private static final Logger log = LoggerFactory.getLogger(JarLaunch.class);
  private static final String ARCHIVE = "classes.jsa";
  /** Archives being written by a process of this JVM, by unpacked directory: one writer each. */
  private static final Set<Path> training = ConcurrentHashMap.newKeySet();

  private JarLaunch() {}

  /**
   * A command that runs {@code jar}: the JVM options, then how to find the classes, then the application's
   * arguments; {@code onExit} to be run when its process has exited (it files the archive a first run wrote).
   */
  public record Command(List<String> command, Consumer<Process> onExit) {}

  /** The command for {@code jar} with {@code jvmOptions} and {@code args}, as fast as this machine allows. */
  public static Command of(String java, List<String> jvmOptions, Path jar, List<String> args) {
    List<String> command = new ArrayList<>(List.of(java));
    command.addAll(jvmOptions);
    Path unpacked = unpacked(jar, java);
    Consumer<Process> onExit = process -> { };
    if (unpacked == null) {
      command.addAll(List.of("-jar", jar.toAbsolutePath().toString()));
    } else {
      Path archive = unpacked.resolve(ARCHIVE);
      if (Files.isRegularFile(archive)) {
        command.add("-XX:SharedArchiveFile=" + archive);
      } else if (training.add(unpacked)) {
        Path part = unpacked.resolve("classes-" + UUID.randomUUID() + ".jsa.part");
        command.add("-XX:ArchiveClassesAtExit=" + part);
        onExit = process -> file(process, part, archive, unpacked);
      }
      // The archive's warnings (refused, stale) are for whoever debugs start-up, not for every worker's log.
      command.add("-Xlog:cds=off,cds+dynamic=off");
      command.addAll(List.of("-jar", unpacked.resolve(jar.getFileName()).toString()));
    }
    command.addAll(args);
    return new Command(command, onExit);
  }

  /**
   * Makes the archive a process wrote at its exit the one later processes map; the first to finish wins. A process
   * killed (SIGKILL: 128 + 9) wrote none, or was cut off while writing it.
   */
  private static void file(Process exited, Path part, Path archive, Path unpacked) {
    try {
      if (exited.exitValue() != 137 && Files.size(part) > 0 && !Files.exists(archive)) {
        Files.move(part, archive, StandardCopyOption.ATOMIC_MOVE);
        log.info("class-data archive of {} written: later processes start from it", unpacked.getFileName());
      }
    } catch (IOException e) {
      // None written (killed before its exit) or another process's came first: the next run tries again.
      log.debug("no class-data archive from {}: {}", part.getFileName(), e.toString());
    } finally {
      try {
        Files.deleteIfExists(part);
      } catch (IOException ignored) {
        // left in the temporary directory
      }
      training.remove(unpacked);
    }
  }

  /** The jar unpacked by its jar tools (once per machine and build), or null when it cannot be. */
  private static synchronized Path unpacked(Path jar, String java) {
    try {
      String name = jar.getFileName().toString();
      // Named by where the jar is (two checkouts do not share a copy) and by its build (size and time).
      String place = name + "-" + Integer.toHexString(jar.toAbsolutePath().normalize().toString().hashCode());
      Path target = Path.of(System.getProperty("java.io.tmpdir"), "gshare-jars",
          place + "-" + Files.size(jar) + "-" + Files.getLastModifiedTime(jar).toMillis());
      if (Files.isRegularFile(target.resolve(name))) {
        return target;
      }
      Files.createDirectories(target.getParent());
      removeEarlierBuilds(target, place);
      Path scratch = Files.createTempDirectory(target.getParent(), name + "-unpacking-");
      Process extract = new ProcessBuilder(java, "-Djarmode=tools", "-jar", jar.toAbsolutePath().toString(),
          "extract", "--destination", scratch.resolve("out").toString())
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!extract.waitFor(120, TimeUnit.SECONDS) || extract.exitValue() != 0
          || !Files.isRegularFile(scratch.resolve("out").resolve(name))) {
        extract.destroyForcibly();
        deleteQuietly(scratch);
        log.warn("could not unpack {} with its jar tools: running it as a jar", jar);
        return null;
      }
      try {
        // Another JVM (a second test fork) may have unpacked the same jar meanwhile: either copy serves.
        Files.move(scratch.resolve("out"), target, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        // Refused as the target exists (the rename's "Directory not empty"); anything else leaves no copy, as below.
        log.debug("{} was unpacked meanwhile: {}", name, e.toString());
      }
      deleteQuietly(scratch);
      return Files.isRegularFile(target.resolve(name)) ? target : null;
    } catch (IOException e) {
      log.warn("could not unpack {} ({}): running it as a jar", jar, e.toString());
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** Copies of earlier builds of the jar, untouched for an hour (no process of theirs is likely to start again). */
  private static void removeEarlierBuilds(Path target, String place) throws IOException {
    long hourAgo = System.currentTimeMillis() - TimeUnit.HOURS.toMillis(1);
    try (Stream<Path> siblings = Files.list(target.getParent())) {
      siblings.filter(p -> !p.equals(target) && p.getFileName().toString().startsWith(place + "-")).filter(p -> {
        try {
          return Files.getLastModifiedTime(p).toMillis() < hourAgo;
        } catch (IOException e) {
          return false;
        }
      }).forEach(JarLaunch::deleteQuietly);
    }
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // left in the temporary directory
    }
  }
}
