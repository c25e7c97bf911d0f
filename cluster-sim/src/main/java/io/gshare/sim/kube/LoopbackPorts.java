package io.gshare.sim.kube;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntSupplier;

/**
 * Free loopback ports below the kernel's ephemeral range (32768 and up on Linux): the processes bind theirs one
 * after another, and ports picked from the ephemeral range were once taken meanwhile by another process's
 * outgoing connection. A port is handed out once per machine while its JVM lives: the test JVMs that run side by
 * side (failsafe's forks) each pick ports for their own clusters, and two once picked the same one within the
 * moment before its apiserver bound it. A lock on a file named after the port (released by the OS when the JVM
 * ends, however it ends) keeps every other JVM off it.
 */
public final class LoopbackPorts {

  static final Path RESERVATIONS = Path.of(System.getProperty("java.io.tmpdir"), "gshare-loopback-ports");
  private static final Set<Integer> PICKED = new HashSet<>();
  /** Held for the JVM's life: a lock lives as long as its channel stays open. */
  private static final List<FileLock> HELD = new ArrayList<>();

  private LoopbackPorts() {}

  /** A free loopback port between 20000 and 32000, handed out once per machine while this JVM lives. */
  public static int free() {
    return free(() -> ThreadLocalRandom.current().nextInt(20_000, 32_000));
  }

  /** The first of the candidates that no one holds: not picked before here, reserved by no other JVM, bindable. */
  static synchronized int free(IntSupplier candidates) {
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = candidates.getAsInt();
      if (PICKED.add(port) && reserve(port)) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
          return port;
        } catch (IOException taken) {
          // try another
        }
      }
    }
    throw new UncheckedIOException(new IOException("no free loopback port between 20000 and 32000"));
  }

  /** True when this JVM now holds the port's reservation; false when another JVM holds it. */
  static boolean reserve(int port) {
    try {
      Files.createDirectories(RESERVATIONS);
      FileChannel channel = FileChannel.open(RESERVATIONS.resolve(port + ".lock"), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE);
      FileLock lock = channel.tryLock();
      if (lock == null) {
        channel.close();
        return false;
      }
      HELD.add(lock);
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("could not reserve loopback port " + port + " under " + RESERVATIONS, e);
    }
  }
}
