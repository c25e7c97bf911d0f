package io.gshare.api.signin;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.gshare.activities.cluster.model.SessionObjects;
import io.gshare.api.security.SignInPaths;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.NewTestIds;
import io.gshare.workflows.kube.Annotations;
import java.io.IOException;
import java.net.CookieManager;
import java.net.CookiePolicy;
import java.net.HttpCookie;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A session URL opened in a browser on the session's own domain, through a real nginx (Debian's, from .tools/bin)
 * configured as ingress-nginx configures a session Ingress's auth-url and auth-signin: the auth subrequest to
 * {@code /internal/connect/verify} with X-Original-URL, the auth response's Set-Cookie passed on, a 401 redirected to
 * the sign-in with {@code rd}. The console is the api on 127.0.0.1, the session domain is {@code localhost}, so the
 * browser keeps their cookies apart as it would two hosts. The session pod's server is a stand-in that answers who
 * nginx says the user is.
 */
class SessionUrlInBrowserIT extends ApiIntegrationTest {

  private static final List<AutoCloseable> closing = new ArrayList<>();

  @AfterAll
  static void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  @Test
  void theOwnerLandsOnTheSessionThroughTheConsoleAndAnotherUserIsRefused() throws Exception {
    String model = "NVIDIA Url " + NewTestIds.next("m");
    AttachedSimulator attached = attachSimulator("url", "url-gpu-0", model, 1, 24576, "localhost");
    closing.add(attached.sim());
    RunningSession running = startSession(model);
    String session = running.id();

    // What the session workflow wrote: the auth-url, the sign-in redirect, and a cache key with the caller and code.
    Ingress ingress;
    try (var client = attached.sim().newClient()) {
      ingress = client.network().v1().ingresses().inNamespace("gshare-sessions")
          .withName(SessionObjects.name(session)).get();
    }
    var annotations = ingress.getMetadata().getAnnotations();
    assertThat(annotations.get(Annotations.NGINX_AUTH_URL)).endsWith("/internal/connect/verify");
    assertThat(annotations.get(Annotations.NGINX_AUTH_SIGNIN)).endsWith(SignInPaths.CONNECT);
    assertThat(annotations.get(Annotations.NGINX_AUTH_CACHE_KEY)).startsWith(session).contains("$cookie_gshare_token")
        .contains("$http_authorization").contains("$arg_gshare_code");

    HttpServer upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    upstream.createContext("/", exchange -> {
      byte[] body = ("jupyter of " + exchange.getRequestHeaders().getFirst("X-Gshare-User")).getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    upstream.start();
    closing.add(() -> upstream.stop(0));
    int nginxPort = freePort();
    Process nginx = startNginx(nginxPort, session, upstream.getAddress().getPort());
    closing.add(() -> {
      nginx.destroy();
      nginx.waitFor(10, TimeUnit.SECONDS);
    });
    String sessionUrl = "http://localhost:" + nginxPort + "/s/" + session + "/lab";
    awaitListening(nginxPort);

    // The owner, signed in on the console (its cookie on 127.0.0.1), opens the session URL on the session domain.
    CookieManager ownerCookies = signedInOnConsole(running.ownerToken());
    HttpClient owner = browser(ownerCookies);
    HttpResponse<String> landed = owner.send(HttpRequest.newBuilder(URI.create(sessionUrl)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(landed.statusCode()).as(landed.body()).isEqualTo(200);
    assertThat(landed.body()).isEqualTo("jupyter of " + userOf(running.ownerToken()));
    assertThat(landed.uri().getHost()).isEqualTo("localhost");
    assertThat(landed.uri().getQuery()).contains(SignInPaths.CODE_PARAM + "=");
    HttpCookie sessionCookie = ownerCookies.getCookieStore().get(URI.create(sessionUrl)).stream()
        .filter(c -> c.getName().equals("gshare_token")).findFirst().orElseThrow();
    assertThat(sessionCookie.isHttpOnly()).isTrue();
    assertThat(sessionCookie.getPath()).isEqualTo("/s/" + session + "/");
    assertThat(sessionCookie.getValue()).isNotEqualTo(running.ownerToken());

    // From now on the session domain's cookie opens it directly: no more trips to the console.
    HttpResponse<String> again = HttpClient.newBuilder().cookieHandler(ownerCookies).build()
        .send(HttpRequest.newBuilder(URI.create(sessionUrl)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(again.statusCode()).isEqualTo(200);

    // The code was for one use: replayed by another browser, it opens nothing (and that browser is not signed in).
    HttpResponse<String> replayed = browser(new CookieManager(null, CookiePolicy.ACCEPT_ALL))
        .send(HttpRequest.newBuilder(landed.uri()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(replayed.statusCode()).isEqualTo(401);
    assertThat(replayed.body()).contains("Not signed in");

    // Another user, signed in on the console, is refused with the reason, and reaches nothing of the session.
    String stranger = tokenFor(newUser("user"));
    HttpResponse<String> refused = browser(signedInOnConsole(stranger))
        .send(HttpRequest.newBuilder(URI.create(sessionUrl)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(refused.body()).contains("Cannot open this session").doesNotContain("jupyter");
    assertThat(refused.uri().getHost()).isEqualTo("127.0.0.1");
  }

  private String userOf(String token) {
    return api(token).users().me().id();
  }

  private CookieManager signedInOnConsole(String token) {
    CookieManager cookies = new CookieManager(null, CookiePolicy.ACCEPT_ALL);
    HttpCookie cookie = new HttpCookie("gshare_token", token);
    cookie.setPath("/");
    cookie.setVersion(0);
    cookies.getCookieStore().add(URI.create("http://127.0.0.1:" + port + "/"), cookie);
    return cookies;
  }

  private static HttpClient browser(CookieManager cookies) {
    return HttpClient.newBuilder().cookieHandler(cookies).followRedirects(HttpClient.Redirect.ALWAYS)
        .connectTimeout(Duration.ofSeconds(5)).build();
  }

  /**
   * nginx as ingress-nginx renders a session Ingress with auth-url and auth-signin (its template's auth_request
   * location, the X-Original-URL header, the auth response's Set-Cookie added to the answer, 401 → the sign-in with
   * rd). ingress-nginx escapes rd; nginx without the set-misc module cannot, so this passes the URI as it is (the
   * test's URLs need no escaping).
   */
  private Process startNginx(int listen, String session, int upstreamPort) throws IOException {
    Path nginx = tool("nginx");
    Path dir = Files.createTempDirectory("nginx-session-url");
    Files.createDirectories(dir.resolve("logs"));
    Files.createDirectories(dir.resolve("tmp"));
    String api = "http://127.0.0.1:" + port;
    String conf = """
        worker_processes 1;
        daemon off;
        error_log %1$s/logs/error.log info;
        pid %1$s/nginx.pid;
        events { worker_connections 64; }
        http {
          access_log %1$s/logs/access.log;
          client_body_temp_path %1$s/tmp/body;
          proxy_temp_path %1$s/tmp/proxy;
          fastcgi_temp_path %1$s/tmp/fastcgi;
          uwsgi_temp_path %1$s/tmp/uwsgi;
          scgi_temp_path %1$s/tmp/scgi;
          server {
            listen 127.0.0.1:%2$d;
            server_name localhost;
            location = /_external-auth-%3$s {
              internal;
              proxy_pass_request_body off;
              proxy_set_header Content-Length "";
              proxy_set_header X-Original-URL $scheme://$http_host$request_uri;
              proxy_set_header X-Original-Method $request_method;
              proxy_set_header X-Auth-Request-Redirect $request_uri;
              proxy_pass %4$s/internal/connect/verify;
            }
            location @%3$s-signin {
              return 302 %4$s%5$s?rd=$scheme://$http_host$request_uri;
            }
            location /s/%3$s {
              auth_request /_external-auth-%3$s;
              auth_request_set $auth_cookie $upstream_http_set_cookie;
              add_header Set-Cookie $auth_cookie;
              auth_request_set $authHeader0 $upstream_http_x_gshare_user;
              proxy_set_header X-Gshare-User $authHeader0;
              error_page 401 = @%3$s-signin;
              proxy_pass http://127.0.0.1:%6$d;
            }
          }
        }
        """.formatted(dir, listen, session, api, SignInPaths.CONNECT, upstreamPort);
    Path file = Files.writeString(dir.resolve("nginx.conf"), conf);
    return new ProcessBuilder(nginx.toString(), "-p", dir.toString(), "-c", file.toString())
        .redirectErrorStream(true).redirectOutput(dir.resolve("logs/stdout.log").toFile()).start();
  }

  private static Path tool(String name) {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve(".tools/bin").resolve(name);
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException("no .tools/bin/" + name + ": run make tools (hack/tools.sh) first");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static void awaitListening(int port) {
    Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
      try (Socket socket = new Socket("127.0.0.1", port)) {
        return true;
      }
    });
  }
}
