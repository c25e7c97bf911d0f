package io.gshare.sim;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The real tools (helm, kubectl, prometheus) the manifest tests run, each bounded to two minutes. */
final class TestProcesses {

  private TestProcesses() {}

  /** Runs {@code command} (in {@code workDir} when given, with {@code input} on stdin when given); fails the test unless it exits 0. */
  static String run(List<String> command, Path workDir, String input) throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    if (workDir != null) {
      builder.directory(workDir.toFile());
    }
    Process p = builder.start();
    if (input != null) {
      p.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
    }
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(Duration.ofMinutes(2).toSeconds(), TimeUnit.SECONDS) || p.exitValue() != 0) {
      fail(String.join(" ", command) + " failed:\n" + out);
    }
    return out;
  }
}
