package io.gshare.sim.kube;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports below the kernel's ephemeral range (32768 and up on Linux): the processes bind theirs one
 * after another, and ports picked from the ephemeral range were once taken meanwhile by another process's
 * outgoing connection. A port is handed out once per JVM.
 */
final class LoopbackPorts {

  private static final Set<Integer> PICKED = new HashSet<>();

  private LoopbackPorts() {}

  static synchronized int free() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = random.nextInt(20_000, 32_000);
      if (PICKED.add(port)) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
          return port;
        } catch (IOException taken) {
          // try another
        }
      }
    }
    throw new UncheckedIOException(new IOException("no free loopback port between 20000 and 32000"));
  }
}
