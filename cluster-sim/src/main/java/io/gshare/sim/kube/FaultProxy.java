package io.gshare.sim.kube;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.TrustManagerFactory;
import javax.security.auth.x500.X500Principal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fault-injecting HTTPS reverse proxy in front of a {@link LocalKubernetes}' real apiserver, for the fault suite:
 * every request is forwarded as it came, except those an injected {@link ApiFault} matches, which are answered with
 * the {@code metav1.Status} a real apiserver gives for that failure ({@link ApiFaultKind}); a {@code 504 Timeout} is
 * answered after the real apiserver applied the request. Watches stream through it, chunk by chunk. Upgrade requests
 * (exec, attach, port-forward) are not supported.
 *
 * <p>TLS: it serves a certificate the cluster's CA signed, so whoever trusts the cluster trusts it. A request's
 * {@code Authorization} header (a ServiceAccount's bearer token, say) is forwarded as is, without client
 * certificate, so the apiserver judges that identity. A request without one that presented the admin's client
 * certificate ({@link LocalKubernetes#ADMIN_USER}, as the admin kubeconfig does) is forwarded with the admin's
 * certificate, since TLS ends here; any other goes on anonymous.
 */
public final class FaultProxy implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(FaultProxy.class);
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  /** Headers of one hop, or that the JDK's client sets itself (it refuses to be given them, date and via too). */
  private static final Set<String> NOT_FORWARDED = Set.of("connection", "content-length", "date", "expect", "from",
      "host", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "http2-settings",
      "via", "warning");
  /** Answer headers of one hop, or that the proxy's server writes itself; an apiserver's Warning goes through. */
  private static final Set<String> NOT_RELAYED = Set.of("connection", "content-length", "date", "keep-alive",
      "proxy-connection", "trailer", "transfer-encoding", "upgrade");

  private final URI upstream;
  private final HttpsServer server;
  private final ExecutorService threads;
  /**
   * The upstream answers being relayed (watches, mostly): closed with the proxy, or the apiserver would wait for
   * them at its own stop (it waited out its 10 s of SIGTERM grace after every fault-suite run).
   */
  private final Set<InputStream> relaying = ConcurrentHashMap.newKeySet();
  /** Forwards what carries its own credentials: no client certificate, so a bearer token is what is judged. */
  private final HttpClient withoutCertificate;
  /** Forwards the admin's header-less requests with the admin's client certificate. */
  private final HttpClient asAdmin;
  private final ApiFaultQueue faults = new ApiFaultQueue();
  private final Map<Integer, AtomicLong> upstreamStatuses = new ConcurrentHashMap<>();

  private FaultProxy(LocalKubernetes kubernetes, int port) {
    this.upstream = URI.create(kubernetes.url());
    KubePki pki = kubernetes.pki();
    try {
      KeyStore trusted = KeyStore.getInstance("PKCS12");
      trusted.load(null, null);
      trusted.setCertificateEntry("cluster-ca", KubePki.Pem.readCertificate(pki.caCertificate()));
      KubePki.Pair serving = pki.serving("fault-proxy", List.of("localhost"), List.of("127.0.0.1"));
      SSLContext servingContext = context(keyStore(serving, pki), trusted);
      this.withoutCertificate = client(context(null, trusted));
      this.asAdmin = client(context(keyStore(kubernetes.adminCertificate(), pki), trusted));

      AtomicInteger n = new AtomicInteger();
      this.threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "gshare-fault-proxy-" + n.incrementAndGet());
        t.setDaemon(true);
        return t;
      });
      this.server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
      server.setHttpsConfigurator(new HttpsConfigurator(servingContext) {
        @Override
        public void configure(HttpsParameters params) {
          SSLParameters parameters = servingContext.getDefaultSSLParameters();
          // Asked, not required: token holders present none; the admin kubeconfig's certificate says who it is.
          parameters.setWantClientAuth(true);
          params.setSSLParameters(parameters);
        }
      });
      server.setExecutor(threads);
      server.createContext("/", this::handle);
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("could not set up the fault proxy's TLS", e);
    }
    log.info("fault proxy on {} in front of the apiserver at {}", url(), upstream);
  }

  /** @param port where it listens on 127.0.0.1; 0 picks a free one */
  public static FaultProxy start(LocalKubernetes kubernetes, int port) {
    return new FaultProxy(kubernetes, port);
  }

  /** Where clients reach the apiserver through it. */
  public String url() {
    return "https://127.0.0.1:" + server.getAddress().getPort();
  }

  /** The faults it answers. */
  public ApiFaultQueue faults() {
    return faults;
  }

  /** How many answers of {@code status} the real apiserver gave through it (a fault's answer is not counted). */
  public long upstreamAnswers(int status) {
    AtomicLong count = upstreamStatuses.get(status);
    return count == null ? 0 : count.get();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try {
      String path = exchange.getRequestURI().getRawPath();
      boolean watch = "GET".equals(exchange.getRequestMethod()) && isWatch(exchange.getRequestURI().getRawQuery());
      ApiFault fault = faults.take(watch ? ApiFault.WATCH : exchange.getRequestMethod(), path);
      if (fault != null && fault.kind() != ApiFaultKind.TIMEOUT_AFTER_WRITE) {
        log.info("fault proxy: {} {} answered {}", exchange.getRequestMethod(), path, fault.kind());
        answerFault(exchange, fault.kind());
        return;
      }
      HttpResponse<InputStream> answer;
      try {
        answer = forward(exchange);
      } catch (IOException | IllegalArgumentException unreachable) {
        answerStatus(exchange, 503, "ServiceUnavailable",
            "the apiserver behind the fault proxy did not answer: " + unreachable.getMessage());
        return;
      }
      upstreamStatuses.computeIfAbsent(answer.statusCode(), s -> new AtomicLong()).incrementAndGet();
      if (fault != null) {
        // The write is applied; only its answer is lost.
        try (InputStream applied = answer.body()) {
          applied.transferTo(OutputStream.nullOutputStream());
        }
        log.info("fault proxy: {} {} applied (HTTP {}) and answered {}", exchange.getRequestMethod(), path,
            answer.statusCode(), fault.kind());
        answerFault(exchange, fault.kind());
        return;
      }
      relay(exchange, answer);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      exchange.close();
    }
  }

  private static boolean isWatch(String query) {
    if (query == null) {
      return false;
    }
    for (String parameter : query.split("&")) {
      if (parameter.equals("watch=true") || parameter.equals("watch=1")) {
        return true;
      }
    }
    return false;
  }

  private HttpResponse<InputStream> forward(HttpExchange exchange) throws IOException, InterruptedException {
    URI target = upstream.resolve(exchange.getRequestURI().getRawPath()
        + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery()));
    byte[] body = exchange.getRequestBody().readAllBytes();
    HttpRequest.Builder request = HttpRequest.newBuilder(target).method(exchange.getRequestMethod(),
        body.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    exchange.getRequestHeaders().forEach((name, values) -> {
      if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT))) {
        values.forEach(value -> request.header(name, value));
      }
    });
    boolean ownCredentials = exchange.getRequestHeaders().containsKey("Authorization");
    HttpClient client = !ownCredentials && presentedAdminCertificate(exchange) ? asAdmin : withoutCertificate;
    return client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
  }

  private static boolean presentedAdminCertificate(HttpExchange exchange) {
    try {
      Certificate[] chain = ((HttpsExchange) exchange).getSSLSession().getPeerCertificates();
      // TLS verified the chain against the cluster CA; the subject says which of its users it is.
      X500Principal subject = ((X509Certificate) chain[0]).getSubjectX500Principal();
      return subject.getName(X500Principal.RFC2253).contains("CN=" + LocalKubernetes.ADMIN_USER);
    } catch (SSLPeerUnverifiedException none) {
      return false;
    }
  }

  /** The real answer, streamed: a watch's events reach the client as the apiserver sends them. */
  private void relay(HttpExchange exchange, HttpResponse<InputStream> answer) throws IOException {
    InputStream in = answer.body();
    relaying.add(in);
    try (in) {
      answer.headers().map().forEach((name, values) -> {
        if (!NOT_RELAYED.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
          exchange.getResponseHeaders().put(name, values);
        }
      });
      long length = answer.headers().firstValueAsLong("Content-Length").orElse(-1);
      boolean bodiless = "HEAD".equals(exchange.getRequestMethod()) || answer.statusCode() == 204
          || answer.statusCode() == 304;
      // HttpServer's length: -1 no body, 0 chunked, else fixed.
      exchange.sendResponseHeaders(answer.statusCode(), bodiless || length == 0 ? -1 : Math.max(0, length));
      if (bodiless) {
        return;
      }
      OutputStream out = exchange.getResponseBody();
      byte[] buffer = new byte[16 * 1024];
      for (int read; (read = in.read(buffer)) >= 0; ) {
        out.write(buffer, 0, read);
        out.flush();
      }
      out.close();
    } finally {
      relaying.remove(in);
    }
  }

  private static void answerFault(HttpExchange exchange, ApiFaultKind kind) throws IOException {
    if (kind == ApiFaultKind.DROPPED) {
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, 0);
      exchange.getResponseBody().close();
      return;
    }
    if (kind == ApiFaultKind.TOO_MANY_REQUESTS) {
      exchange.getResponseHeaders().set("Retry-After", String.valueOf(ApiFaultKind.RETRY_AFTER_SECONDS));
    }
    answerStatus(exchange, kind.code(), kind.reason(), kind.message());
  }

  /** A {@code metav1.Status} failure, as the apiserver writes it. */
  private static void answerStatus(HttpExchange exchange, int code, String reason, String message) throws IOException {
    StatusBuilder status = new StatusBuilder().withApiVersion("v1").withKind("Status").withNewMetadata().endMetadata()
        .withStatus("Failure").withMessage(message).withReason(reason).withCode(code);
    if (code == 429) {
      status.withNewDetails().withRetryAfterSeconds(ApiFaultKind.RETRY_AFTER_SECONDS).endDetails();
    }
    Status built = status.build();
    byte[] body = SERIALIZATION.asJson(built).getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static HttpClient client(SSLContext context) {
    // HTTP/1.1: one connection per watch, as most clients keep them; no HTTP/2 stream limits to meet.
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(context)
        .connectTimeout(Duration.ofSeconds(5)).build();
  }

  private static KeyStore keyStore(KubePki.Pair pair, KubePki pki) throws IOException, GeneralSecurityException {
    KeyStore keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    keys.setKeyEntry("key", KubePki.Pem.readKeyPair(pair.key()).getPrivate(), new char[0], new Certificate[] {
        KubePki.Pem.readCertificate(pair.certificate()), KubePki.Pem.readCertificate(pki.caCertificate())});
    return keys;
  }

  private static SSLContext context(KeyStore keys, KeyStore trusted) throws GeneralSecurityException {
    TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(trusted);
    KeyManagerFactory keyManagers = null;
    if (keys != null) {
      keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keyManagers.init(keys, new char[0]);
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keyManagers == null ? null : keyManagers.getKeyManagers(), trust.getTrustManagers(), null);
    return context;
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
    for (InputStream upstream : relaying) {
      try {
        upstream.close();
      } catch (IOException e) {
        log.debug("closing an upstream answer failed: {}", e.toString());
      }
    }
    log.info("fault proxy on {} stopped", url());
  }
}
