package io.gshare.dev;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.temporal.internal.testservice.TestServicesStarter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The Temporal Java SDK's in-memory dev server (temporal-test-server), with real-time timers, on a
 * loopback gRPC port. {@code TestServer.createPortBoundServer} would listen on every interface; an
 * unauthenticated workflow engine should not, so this builds the same services onto a loopback socket.
 *
 * <p>Limits to design around: no Schedule API, no visibility list/count queries, no DescribeTaskQueue,
 * executions live in memory only.
 */
final class EmbeddedTemporal implements AutoCloseable {

  private final TestServicesStarter services;
  private final Server server;

  EmbeddedTemporal(int port) {
    services = new TestServicesStarter(true, 0); // time skipping locked: timers run in real time
    HealthStatusManager health = new HealthStatusManager();
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    services.getServices().forEach(service -> {
      builder.addService(service);
      health.setStatus(service.bindService().getServiceDescriptor().getName(),
          io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
    });
    builder.addService(health.getHealthService());
    try {
      server = builder.build().start();
    } catch (IOException e) {
      services.close();
      throw new UncheckedIOException("could not listen on 127.0.0.1:" + port + " for Temporal (is it taken?)", e);
    }
  }

  String address() {
    return "127.0.0.1:" + server.getPort();
  }

  @Override
  public void close() {
    server.shutdown();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    server.shutdownNow();
    services.close();
  }
}
