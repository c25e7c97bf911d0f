package io.gshare.api.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.NewTestIds;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** ingress-nginx's auth subrequest: 2xx for the owner, 401 not signed in, 403 someone else's. */
class ConnectVerifyIT extends ApiIntegrationTest {

  private final HttpClient http = HttpClient.newHttpClient();
  private String owner;
  private String ownerToken;
  private String sessionId;
  private String domain;

  @BeforeEach
  void aRunningSession() {
    String cluster = NewTestIds.next("clu");
    domain = cluster.replace('_', '-') + ".example.com";
    jdbc.sql("insert into clusters (id, name, status, session_domain) values (:id, :n, 'connected', :d)")
        .param("id", cluster).param("n", cluster.replace('_', '-')).param("d", domain).update();
    owner = newUser("user");
    ownerToken = tokenFor(owner);
    sessionId = NewTestIds.next("ses");
    jdbc.sql("""
        insert into sessions (id, user_id, state, cluster_id, gpu_model, mode, price_per_hour, image_reference, workflow_id)
        values (:id, :u, 'running', :c, 'NVIDIA H100 80GB HBM3', 'exclusive', 4, 'img', :w)
        """).param("id", sessionId).param("u", owner).param("c", cluster).param("w", "session-" + sessionId).update();
  }

  /** What ingress-nginx sends: the original URL plus the browser's own headers. */
  private int verify(String originalUrl, String cookieToken, String bearer) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/internal/connect/verify"))
        .header("X-Original-URL", originalUrl)
        .header("X-Original-Method", "GET")
        .header("X-Sent-From", "nginx-ingress-controller");
    if (cookieToken != null) {
      request.header("Cookie", "_xsrf=abc; gshare_token=" + cookieToken);
    }
    if (bearer != null) {
      request.header("Authorization", "Bearer " + bearer);
    }
    return http.send(request.GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  /**
   * What Envoy Gateway's extAuth sends (Envoy's ext_authz HTTP service): the original method, the original path
   * after the configured prefix, the original Host, and the headers the SecurityPolicy forwards. A raw socket,
   * because Java's HTTP client will not set Host.
   */
  private int verifyAsEnvoy(String method, String host, String forwardedHost, String path, String cookieToken)
      throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      StringBuilder request = new StringBuilder(method + " /internal/connect/verify" + path + " HTTP/1.1\r\n")
          .append("Host: ").append(host).append("\r\n")
          .append("X-Forwarded-Proto: https\r\nContent-Length: 0\r\nConnection: close\r\n");
      if (forwardedHost != null) {
        request.append("X-Forwarded-Host: ").append(forwardedHost).append("\r\n");
      }
      if (cookieToken != null) {
        request.append("Cookie: _xsrf=abc; gshare_token=").append(cookieToken).append("\r\n");
      }
      socket.getOutputStream().write(request.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
      String status = new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.US_ASCII)).readLine();
      return Integer.parseInt(status.split(" ")[1]);
    }
  }

  @Test
  void envoyGatewaysExtAuthShapeGetsTheSameVerdicts() throws Exception {
    String path = "/s/" + sessionId + "/lab/tree/notebook.ipynb";
    assertThat(verifyAsEnvoy("GET", domain, null, path, ownerToken)).isEqualTo(200);
    // Envoy keeps the original method: a notebook's POST is checked like its GET.
    assertThat(verifyAsEnvoy("POST", domain, null, "/s/" + sessionId + "/api/kernels", ownerToken)).isEqualTo(200);
    // Behind a proxy that rewrites Host, the original one is in X-Forwarded-Host.
    assertThat(verifyAsEnvoy("GET", "gshare-api.gshare-system.svc", domain, path, ownerToken)).isEqualTo(200);
    assertThat(verifyAsEnvoy("GET", domain, null, path, null)).isEqualTo(401);
    assertThat(verifyAsEnvoy("GET", domain, null, path, tokenFor(newUser("user")))).isEqualTo(403);
    assertThat(verifyAsEnvoy("GET", "other.example.com", null, path, ownerToken)).isEqualTo(403);
    assertThat(verifyAsEnvoy("GET", domain, null, "/not-a-session", ownerToken)).isEqualTo(403);
    // A browser's navigation without a cookie: Envoy hands the check's answer to the browser, a redirect to sign in.
    HttpResponse<String> browser = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/internal/connect/verify"
            + path)).header("X-Forwarded-Host", domain).header("X-Forwarded-Proto", "https")
            .header("Accept", "text/html,application/xhtml+xml").build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(browser.statusCode()).isEqualTo(302);
    assertThat(browser.headers().firstValue("Location").orElse("")).contains("/auth/connect?rd=")
        .contains(URLEncoder.encode("https://" + domain + path, StandardCharsets.UTF_8));
  }

  @Test
  void theOwnerMayOpenTheirSessionByCookieOrBearer() throws Exception {
    String url = "https://" + domain + "/s/" + sessionId + "/lab/tree/notebook.ipynb?x=1";
    assertThat(verify(url, ownerToken, null)).isEqualTo(200);
    assertThat(verify(url, null, ownerToken)).isEqualTo(200);
    assertThat(verify("https://" + domain + "/s/" + sessionId, ownerToken, null)).isEqualTo(200);
  }

  @Test
  void nobodySignedInIs401() throws Exception {
    String url = "https://" + domain + "/s/" + sessionId + "/";
    assertThat(verify(url, null, null)).isEqualTo(401);
    assertThat(verify(url, "garbage", null)).isEqualTo(401);
    assertThat(verify(url, operatorToken(SIM_CLUSTER_ID), null)).isEqualTo(401);
  }

  @Test
  void someoneElsesSessionOrAForeignHostIs403() throws Exception {
    String stranger = tokenFor(newUser("user"));
    String admin = tokenFor(newUser("admin"));
    assertThat(verify("https://" + domain + "/s/" + sessionId + "/", stranger, null)).isEqualTo(403);
    // Admins manage sessions through the API; they do not walk into a user's notebook.
    assertThat(verify("https://" + domain + "/s/" + sessionId + "/", admin, null)).isEqualTo(403);
    assertThat(verify("https://other.example.com/s/" + sessionId + "/", ownerToken, null)).isEqualTo(403);
    assertThat(verify("https://" + domain + "/s/ses_nosuch/", ownerToken, null)).isEqualTo(403);
    assertThat(verify("https://" + domain + "/not-a-session", ownerToken, null)).isEqualTo(403);
  }
}
