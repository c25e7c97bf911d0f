package io.gshare.dev;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.workflows.kube.LabelKeys;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The simulated clusters' ingress, so that a session URL opens in a browser: a real nginx (Debian's, from
 * {@code make tools}) on loopback, configured as ingress-nginx configures a session Ingress (the auth subrequest to the
 * api's {@code /internal/connect/verify} with {@code X-Original-URL}, its {@code Set-Cookie} passed on, a 401 sent to
 * the console's {@code /auth/connect} with {@code rd}), in front of a stand-in for the session pods' servers.
 *
 * <p>The session domains are {@code *.localhost}, which browsers and curl resolve to loopback with no DNS set-up. The
 * stand-in answers for a session whose pod the simulator runs (200, a page naming the session, its pod and the user the
 * auth check let in) and 503 when there is none, as ingress-nginx does for a Service without endpoints: the cluster is
 * simulated, so no notebook runs behind it.
 */
final class DevIngress implements AutoCloseable {

  /** A session path: {@code /s/<id>/...}. */
  private static final Pattern SESSION_PATH = Pattern.compile("^/s/(ses_[0-9a-z]+)(/.*)?$");

  private final Nginx nginx;
  private final HttpServer standIn;
  private final int port;

  private DevIngress(Nginx nginx, HttpServer standIn, int port) {
    this.nginx = nginx;
    this.standIn = standIn;
    this.port = port;
  }

  /**
   * Starts the stand-in and nginx on {@code 127.0.0.1:port}, or fails saying why.
   *
   * @param clusters the simulated clusters, read per request (they attach after the ingress starts)
   */
  static DevIngress start(Path nginxBinary, int port, String apiUrl, Path dir, Supplier<List<DevRuntime.AttachedCluster>> clusters)
      throws IOException {
    HttpServer standIn = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    standIn.setExecutor(Executors.newFixedThreadPool(4, r -> {
      Thread t = new Thread(r, "gshare-dev-session-stand-in");
      t.setDaemon(true);
      return t;
    }));
    standIn.createContext("/", exchange -> answer(exchange, clusters));
    standIn.start();
    Nginx nginx;
    try {
      nginx = Nginx.start(nginxBinary, dir, config(dir, port, apiUrl, standIn.getAddress().getPort()),
          "the clusters' ingress", "run hack/tools.sh (make tools), or start with --no-ingress");
    } catch (IOException | RuntimeException e) {
      standIn.stop(0);
      throw e;
    }
    DevIngress ingress = new DevIngress(nginx, standIn, port);
    try {
      nginx.awaitListening(port, Duration.ofSeconds(15));
    } catch (RuntimeException e) {
      ingress.close();
      throw e;
    }
    return ingress;
  }

  /** The nginx configuration: one server for every session domain, as ingress-nginx renders a session Ingress. */
  static String config(Path dir, int port, String apiUrl, int standInPort) {
    return """
        worker_processes 1;
        daemon off;
        pid %1$s/nginx.pid;
        error_log %1$s/logs/error.log notice;
        events { worker_connections 256; }
        http {
          access_log %1$s/logs/access.log;
          client_body_temp_path %1$s/tmp/body;
          proxy_temp_path %1$s/tmp/proxy;
          fastcgi_temp_path %1$s/tmp/fastcgi;
          uwsgi_temp_path %1$s/tmp/uwsgi;
          scgi_temp_path %1$s/tmp/scgi;
          map $http_upgrade $connection_upgrade { default upgrade; '' close; }
          server {
            listen 127.0.0.1:%2$d default_server;
            server_name _;
            location = /_external-auth {
              internal;
              proxy_pass_request_body off;
              proxy_set_header Content-Length "";
              proxy_set_header X-Original-URL $scheme://$http_host$request_uri;
              proxy_set_header X-Original-Method $request_method;
              proxy_pass %3$s/internal/connect/verify;
            }
            location @signin {
              return 302 %3$s/auth/connect?rd=$scheme://$http_host$request_uri;
            }
            location /s/ {
              auth_request /_external-auth;
              auth_request_set $auth_cookie $upstream_http_set_cookie;
              add_header Set-Cookie $auth_cookie;
              auth_request_set $gshare_user $upstream_http_x_gshare_user;
              auth_request_set $gshare_session $upstream_http_x_gshare_session;
              error_page 401 = @signin;
              proxy_set_header Host $http_host;
              proxy_set_header X-Gshare-User $gshare_user;
              proxy_set_header X-Gshare-Session $gshare_session;
              proxy_http_version 1.1;
              proxy_set_header Upgrade $http_upgrade;
              proxy_set_header Connection $connection_upgrade;
              proxy_pass http://127.0.0.1:%4$d;
            }
            location / {
              return 404 "not a session URL: sessions are at /s/<id>/\\n";
            }
          }
        }
        """.formatted(dir.toAbsolutePath(), port, apiUrl, standInPort);
  }

  private static void answer(HttpExchange exchange, Supplier<List<DevRuntime.AttachedCluster>> clusters) throws IOException {
    try (exchange) {
      Matcher m = SESSION_PATH.matcher(exchange.getRequestURI().getRawPath());
      if (!m.matches()) {
        send(exchange, 404, page("Not a session", "<p>Sessions are at <code>/s/&lt;id&gt;/</code>.</p>"));
        return;
      }
      String sessionId = m.group(1);
      String host = Optional.ofNullable(exchange.getRequestHeaders().getFirst("Host")).orElse("")
          .replaceFirst(":\\d+$", "").toLowerCase(Locale.ROOT);
      String user = Optional.ofNullable(exchange.getRequestHeaders().getFirst("X-Gshare-User")).orElse("");
      for (DevRuntime.AttachedCluster cluster : clusters.get()) {
        if (!cluster.sessionDomain().equalsIgnoreCase(host)) {
          continue;
        }
        Optional<Pod> pod = runningPod(cluster, sessionId);
        if (pod.isEmpty()) {
          send(exchange, 503, page("503 Service Temporarily Unavailable",
              "<p id=\"upstream-unavailable\">Session <code>" + escape(sessionId) + "</code> has no running pod on cluster "
                  + escape(cluster.name()) + " (paused, starting or ended): its ingress has nowhere to send you.</p>"));
          return;
        }
        Pod p = pod.get();
        send(exchange, 200, page("Session " + sessionId, """
            <h1 id="upstream">Session %s (simulated)</h1>
            <p>You reached session <code id="upstream-session">%s</code> on cluster <strong>%s</strong> through its ingress;
            the auth check let in user <code id="upstream-user">%s</code>.</p>
            <p>Pod <code>%s/%s</code> on node <code>%s</code>, image <code>%s</code>.</p>
            <p>The GPU cluster is simulated: in a real cluster, the session's own server (Jupyter, VS Code...) answers here.</p>
            """.formatted(escape(sessionId), escape(sessionId), escape(cluster.name()), escape(user),
            escape(p.getMetadata().getNamespace()), escape(p.getMetadata().getName()), escape(p.getSpec().getNodeName()),
            escape(p.getSpec().getContainers().isEmpty() ? "" : p.getSpec().getContainers().get(0).getImage()))));
        return;
      }
      send(exchange, 404, page("Unknown session domain",
          "<p>No simulated cluster has the session domain <code>" + escape(host) + "</code>.</p>"));
    } catch (RuntimeException e) {
      send(exchange, 502, page("502 Bad Gateway", "<p>" + escape(e.toString()) + "</p>"));
    }
  }

  private static Optional<Pod> runningPod(DevRuntime.AttachedCluster cluster, String sessionId) {
    try (KubernetesClient client = cluster.newClient()) {
      return client.pods().inAnyNamespace().withLabel(LabelKeys.SESSION_ID, sessionId).list().getItems().stream()
          .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
          .filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
          .findFirst();
    }
  }

  private static String page(String title, String body) {
    return "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">"
        + "<title>" + escape(title) + "</title><body style=\"font-family:sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem\">"
        + body + "</body></html>";
  }

  private static void send(HttpExchange exchange, int status, String html) throws IOException {
    byte[] bytes = html.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static String escape(String s) {
    return s == null ? "" : s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  /** A free loopback port, for an ingress port of 0 (the api must know the port before nginx starts). */
  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  int port() {
    return port;
  }

  boolean isAlive() {
    return nginx.isAlive();
  }

  @Override
  public void close() {
    nginx.close();
    standIn.stop(0);
  }

}
