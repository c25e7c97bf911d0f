package io.gshare.api.temporalgateway;

import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC server cluster-workers reach Temporal through: {@link WorkerAuthentication} in front of
 * {@link GatewayService}. Plain HTTP/2: on the internal plane TLS ends at the ingress, as it does for {@code
 * /internal}.
 */
public final class TemporalGateway implements AutoCloseable {

  private final Server server;

  private TemporalGateway(Server server) {
    this.server = server;
  }

  /**
   * Starts serving on {@code address} (port 0: any free one).
   *
   * @param upstream the control plane's own stub of the real frontend (its credentials go with it)
   */
  public static TemporalGateway start(InetSocketAddress address, WorkflowServiceGrpc.WorkflowServiceFutureStub upstream,
      String namespace, TaskTokenSeal seal, OperatorAuthenticator authenticator, DeniedCalls denied) {
    GatewayService service = new GatewayService(upstream, new WorkerCallPolicy(namespace, seal), seal, denied);
    Server server = NettyServerBuilder.forAddress(address)
        .addService(ServerInterceptors.intercept(service, new WorkerAuthentication(authenticator, denied)))
        // A long poll waits up to a minute upstream: keep the worker's connection open meanwhile.
        .permitKeepAliveTime(10, TimeUnit.SECONDS).permitKeepAliveWithoutCalls(true)
        .build();
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException("the Temporal gateway could not listen on " + address, e);
    }
    return new TemporalGateway(server);
  }

  public int port() {
    return server.getPort();
  }

  /** Stops taking calls; those in flight (long polls) get a few seconds, then are cancelled. */
  @Override
  public void close() {
    server.shutdown();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
