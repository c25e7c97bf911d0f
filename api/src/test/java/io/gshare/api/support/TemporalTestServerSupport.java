package io.gshare.api.support;

import io.temporal.testserver.TestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** The embedded Temporal server on a real gRPC port, with real-time timers, once per test JVM. */
public final class TemporalTestServerSupport {

  private static TestServer.PortBoundTestServer server;
  private static int port;

  private TemporalTestServerSupport() {}

  public static synchronized String address() {
    if (server == null) {
      port = freePort();
      server = TestServer.createPortBoundServer(port, true);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> server.close()));
    }
    return "127.0.0.1:" + port;
  }

  public static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
