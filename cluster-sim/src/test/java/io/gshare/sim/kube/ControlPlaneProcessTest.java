package io.gshare.sim.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A control-plane process outlives no JVM: the watchdog ends it when the JVM that started it dies unannounced. */
class ControlPlaneProcessTest {

  @TempDir Path logs;

  /** Starts a long {@code sleep} as a control-plane process, prints its pid, and halts (no shutdown hook runs). */
  public static final class HaltingJvm {
    public static void main(String[] args) {
      ControlPlaneProcess sleeper = ControlPlaneProcess.start("sleeper", Path.of("/bin/sleep"), List.of("300"),
          Path.of(args[0]));
      System.out.println(sleeper.pid());
      System.out.flush();
      Runtime.getRuntime().halt(0);
    }
  }

  @Test
  void aProcessLeftByAHaltedJvmIsEndedByItsWatchdog() throws Exception {
    Process jvm = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), HaltingJvm.class.getName(), logs.toString())
        .redirectErrorStream(true).start();
    String pid;
    try (BufferedReader out = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8))) {
      pid = out.readLine();
    }
    jvm.waitFor();
    ProcessHandle sleeper = ProcessHandle.of(Long.parseLong(pid.trim())).orElse(null);
    assertThat(sleeper).as("the sleeper was running when its JVM halted").isNotNull();
    await().atMost(Duration.ofSeconds(20)).until(() -> !sleeper.isAlive());
  }

  @Test
  void aProcessStoppedNormallyTakesItsWatchdogWithIt() {
    ControlPlaneProcess sleeper = ControlPlaneProcess.start("sleeper", Path.of("/bin/sleep"), List.of("300"), logs);
    assertThat(sleeper.alive()).isTrue();
    sleeper.stop(5);
    assertThat(sleeper.alive()).isFalse();
    await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.current().children()
        .noneMatch(p -> p.info().commandLine().orElse("").contains("gshare-watchdog")));
  }
}
