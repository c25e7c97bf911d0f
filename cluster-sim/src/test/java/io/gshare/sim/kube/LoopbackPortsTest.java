package io.gshare.sim.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ports are reserved across JVMs: another process (as failsafe's other fork would) holds or finds them held. */
class LoopbackPortsTest {

  @TempDir Path dir;

  /** A second JVM that tries the port's lock, says "held" or "busy", and keeps what it got until its stdin closes. */
  private Process otherJvm(int port) throws Exception {
    Path source = dir.resolve("HoldPort.java");
    Files.writeString(source, """
        import java.nio.channels.FileChannel;
        import java.nio.file.Path;
        import java.nio.file.StandardOpenOption;
        public class HoldPort {
          public static void main(String[] args) throws Exception {
            FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            System.out.println(channel.tryLock() != null ? "held" : "busy");
            System.out.flush();
            System.in.read();
          }
        }
        """);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(java, source.toString(), LoopbackPorts.RESERVATIONS.resolve(port + ".lock").toString())
        .redirectErrorStream(true).start();
  }

  private static String firstLine(Process process) throws Exception {
    return new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)).readLine();
  }

  @Test
  void aPortPickedHereIsHeldAgainstOtherJvmsAndOneHeldThereIsNotPickedHere() throws Exception {
    int mine = LoopbackPorts.free();
    Process probe = otherJvm(mine);
    try {
      assertThat(firstLine(probe)).as("another JVM trying the port this one picked").isEqualTo("busy");
    } finally {
      probe.destroy();
    }

    int theirs;
    do {
      theirs = ThreadLocalRandom.current().nextInt(20_000, 32_000);
    } while (theirs == mine);
    Process holder = otherJvm(theirs);
    try {
      assertThat(firstLine(holder)).isEqualTo("held");
      AtomicInteger offered = new AtomicInteger();
      int first = theirs;
      int picked = LoopbackPorts.free(() -> offered.getAndIncrement() == 0 ? first
          : ThreadLocalRandom.current().nextInt(20_000, 32_000));
      assertThat(picked).as("the port another JVM holds is passed over").isNotEqualTo(theirs);
      assertThat(offered.get()).isGreaterThan(1);
    } finally {
      holder.destroy();
    }
  }
}
