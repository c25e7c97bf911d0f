package io.gshare.activities.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.stub.StreamObserver;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.api.workflowservice.v1.GetSystemInfoResponse;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Against a real gRPC server speaking Temporal's service over mutual TLS (certificates made by openssl for
 * the test): the client certificate, the CA, the server name and the API key header all reach it.
 */
class TemporalClientAuthTest {

  @TempDir static Path dir;
  private static Server server;
  private static final List<String> authorizations = new CopyOnWriteArrayList<>();

  private static void openssl(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as(String.join(" ", command) + "\n" + out).isZero();
  }

  @BeforeAll
  static void certificatesAndServer() throws Exception {
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
        "-subj", "/CN=test-ca");
    for (String who : List.of("server", "client")) {
      openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", who + ".rsa.key", "-out", who + ".csr",
          "-subj", "/CN=" + (who.equals("server") ? "temporal.example.com" : "gshare-worker"));
      Files.writeString(dir.resolve(who + ".ext"), who.equals("server")
          ? "subjectAltName=DNS:temporal.example.com\nextendedKeyUsage=serverAuth\n" : "extendedKeyUsage=clientAuth\n");
      openssl("x509", "-req", "-in", who + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out",
          who + ".crt", "-days", "2", "-extfile", who + ".ext");
      openssl("pkcs8", "-topk8", "-nocrypt", "-in", who + ".rsa.key", "-out", who + ".key");
    }
    ServerInterceptor capture = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        authorizations.add(String.valueOf(headers.get(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER))));
        return next.startCall(call, headers);
      }
    };
    WorkflowServiceGrpc.WorkflowServiceImplBase service = new WorkflowServiceGrpc.WorkflowServiceImplBase() {
      @Override
      public void getSystemInfo(GetSystemInfoRequest request, StreamObserver<GetSystemInfoResponse> response) {
        response.onNext(GetSystemInfoResponse.newBuilder().setServerVersion("test").build());
        response.onCompleted();
      }
    };
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .sslContext(GrpcSslContexts.forServer(dir.resolve("server.crt").toFile(), dir.resolve("server.key").toFile())
            .trustManager(dir.resolve("ca.crt").toFile()).clientAuth(ClientAuth.REQUIRE).build())
        .addService(ServerInterceptors.intercept(service, capture))
        .build().start();
  }

  @AfterAll
  static void stop() {
    server.shutdownNow();
  }

  private static String call(TemporalClientAuth auth) {
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(auth.applyTo(WorkflowServiceStubsOptions
        .newBuilder().setTarget("127.0.0.1:" + server.getPort()).setRpcTimeout(Duration.ofSeconds(5))).build());
    try {
      return stubs.blockingStub().getSystemInfo(GetSystemInfoRequest.getDefaultInstance()).getServerVersion();
    } finally {
      stubs.shutdownNow();
    }
  }

  @Test
  void mutualTlsWithTheCaTheServerNameAndAnApiKeyThatIsReadAgainOnEachCall() throws IOException {
    Path key = dir.resolve("api-key");
    Files.writeString(key, "key-1\n");
    TemporalClientAuth auth = new TemporalClientAuth(dir.resolve("client.crt"), dir.resolve("client.key"),
        dir.resolve("ca.crt"), "temporal.example.com", key);
    assertThat(auth.problems("cert", "key", "ca", "api key")).isEmpty();

    authorizations.clear();
    assertThat(call(auth)).isEqualTo("test");
    Files.writeString(key, "key-2\n"); // the mounted Secret was rotated
    assertThat(call(auth)).isEqualTo("test");

    assertThat(authorizations).contains("Bearer key-1", "Bearer key-2");
  }

  @Test
  void withoutTheClientCertificateOrTheServerNameTheHandshakeFails() {
    TemporalClientAuth noClientCert = new TemporalClientAuth(null, null, dir.resolve("ca.crt"), "temporal.example.com",
        null);
    assertThatThrownBy(() -> call(noClientCert)).isInstanceOf(StatusRuntimeException.class);
    TemporalClientAuth wrongName = new TemporalClientAuth(dir.resolve("client.crt"), dir.resolve("client.key"),
        dir.resolve("ca.crt"), null, null);
    assertThatThrownBy(() -> call(wrongName)).isInstanceOf(StatusRuntimeException.class);
  }

  @Test
  void anApiKeyAloneSpeaksPlainAsTheTlsFilesSay() throws IOException {
    Path key = Files.writeString(dir.resolve("operator-token"), "token\n");
    // The SDK would turn TLS on for an API key; a worker sending its token to the gateway on loopback must not.
    assertThat(new TemporalClientAuth(null, null, null, null, key)
        .applyTo(WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:7243")).build().getEnableHttps())
        .isFalse();
    assertThat(new TemporalClientAuth(null, null, dir.resolve("ca.crt"), null, key)
        .applyTo(WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:7243")).build().getSslContext())
        .isNotNull();
  }

  @Test
  void aCertificateWithoutItsKeyOrAMissingFileIsAProblem() {
    assertThat(new TemporalClientAuth(dir.resolve("client.crt"), null, null, null, dir.resolve("nope"))
        .problems("GSHARE_TEMPORAL_TLS_CERT", "GSHARE_TEMPORAL_TLS_KEY", "GSHARE_TEMPORAL_TLS_CA",
            "GSHARE_TEMPORAL_API_KEY_FILE"))
        .containsExactly("GSHARE_TEMPORAL_TLS_CERT and GSHARE_TEMPORAL_TLS_KEY go together: set both or neither",
            "GSHARE_TEMPORAL_API_KEY_FILE '" + dir.resolve("nope") + "' is not a readable file");
    assertThat(TemporalClientAuth.NONE.tls()).isFalse();
  }
}
