package io.gshare.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.localdeployer.JarLaunch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local processes' launch: the cluster-worker jar the reactor built runs unpacked, its first run writes the
 * class-data archive and the runs after it map that archive, each answering as the jar itself does; a jar without
 * Spring Boot's jar tools runs as a jar.
 */
class JarLaunchTest {

  private static final Path WORKER_JAR = Path.of("..", "cluster-worker", "target", "gshare-cluster-worker.jar")
      .toAbsolutePath().normalize();
  private static final String JAVA = ProcessHandle.current().info().command().orElseThrow();

  @Test
  void theWorkerJarRunsUnpackedThenFromTheArchiveItsFirstRunWrote(@TempDir Path dir) throws Exception {
    assertThat(WORKER_JAR).as("built by the reactor before this module").isRegularFile();
    // A copy of its own: the archive of a --help run would serve the real workers of the reactor's jar poorly.
    Path jar = Files.copy(WORKER_JAR, dir.resolve(WORKER_JAR.getFileName()));
    JarLaunch.Command first = JarLaunch.of(JAVA, List.of("-Xmx128m"), jar, List.of("--help"));
    assertThat(first.command()).as("a first run writes the archive")
        .anySatisfy(option -> assertThat(option).startsWith("-XX:ArchiveClassesAtExit="));
    Path unpacked = Path.of(first.command().get(first.command().indexOf("-jar") + 1));
    assertThat(unpacked).as("the unpacked copy's jar").isRegularFile().isNotEqualTo(jar)
        .hasFileName(jar.getFileName().toString());
    assertThat(unpacked.resolveSibling("lib")).isDirectory();
    assertThat(run(first)).startsWith("usage: gshare-cluster-worker");

    JarLaunch.Command next = JarLaunch.of(JAVA, List.of("-Xmx128m"), jar, List.of("--help"));
    assertThat(next.command()).as("the next command maps the archive")
        .anySatisfy(option -> assertThat(option).startsWith("-XX:SharedArchiveFile=").endsWith("classes.jsa"))
        .noneSatisfy(option -> assertThat(option).startsWith("-XX:ArchiveClassesAtExit"));
    assertThat(run(next)).startsWith("usage: gshare-cluster-worker");
    // Of no use after this test (its jar is gone with the test's directory).
    try (var paths = Files.walk(unpacked.getParent())) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  void aJarWithoutJarToolsRunsAsAJar(@TempDir Path dir) throws IOException {
    Path plain = dir.resolve("plain.jar");
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(plain), manifest)) {
      jar.flush();
    }
    JarLaunch.Command command = JarLaunch.of(JAVA, List.of(), plain, List.of("x"));
    assertThat(command.command()).containsSubsequence("-jar", plain.toString(), "x")
        .noneSatisfy(option -> assertThat(option).startsWith("-XX:"));
  }

  /** Runs the command to its end, files what it wrote, and answers its output; it must exit 0. */
  private static String run(JarLaunch.Command command) throws Exception {
    Process process = new ProcessBuilder(command.command()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    command.onExit().accept(process);
    return output;
  }
}
