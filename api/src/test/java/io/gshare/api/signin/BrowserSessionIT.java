package io.gshare.api.signin;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.api.security.SignInPaths;
import io.gshare.api.support.ApiIntegrationTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * A browser's token in its cookie: reads need only the cookie, state-changing calls the CSRF header too, and sign-out
 * revokes the token. (The sign-in through a real OpenID Connect provider is DevRuntimeIT's: this api has none.)
 */
class BrowserSessionIT extends ApiIntegrationTest {

  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> call(String method, String path, String cookies, String csrf) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Cookie", cookies).header("Content-Type", "application/json")
        .method(method, method.equals("GET") ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString("{\"name\":\"cookie-team-" + System.nanoTime() + "\"}"));
    if (csrf != null) {
      request.header("X-CSRF-Token", csrf);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theCookieOpensReadsTheCsrfHeaderGuardsWritesAndSignOutRevokes() throws Exception {
    String token = tokenFor(newUser("admin"));
    String cookies = "gshare_token=" + token + "; gshare_csrf=abc123";
    HttpResponse<String> me = call("GET", "/api/v1/users/me", cookies, null);
    assertThat(me.statusCode()).isEqualTo(200);
    // An hour left of an 8-hour browser sign-in: less than half, so the active browser gets a fresh token (and
    // keeps its CSRF cookie). A bearer header is never renewed.
    assertThat(me.headers().allValues("Set-Cookie")).singleElement().satisfies(c -> assertThat(c)
        .startsWith("gshare_token=").doesNotContain("gshare_token=" + token + ";").contains("HttpOnly")
        .contains("Max-Age=28800"));
    assertThat(get("/api/v1/users/me", token).headers().allValues("Set-Cookie")).isEmpty();

    HttpResponse<String> forged = call("POST", "/api/v1/teams", cookies, null);
    assertThat(forged.statusCode()).isEqualTo(401);
    assertThat(forged.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
    assertThat(forged.body()).contains("X-CSRF-Token");
    assertThat(call("POST", "/api/v1/teams", cookies, "wrong").statusCode()).isEqualTo(401);
    assertThat(call("POST", "/api/v1/teams", cookies, "abc123").statusCode()).isEqualTo(201);
    // A bearer header needs no CSRF header: no browser sends one on its own.
    assertThat(post("/api/v1/teams", "{\"name\":\"bearer-team-" + System.nanoTime() + "\"}", token).statusCode())
        .isEqualTo(201);

    assertThat(call("POST", "/auth/logout", cookies, "nope").statusCode()).isEqualTo(403);
    HttpResponse<String> out = call("POST", "/auth/logout", cookies, "abc123");
    assertThat(out.statusCode()).isEqualTo(204);
    assertThat(out.headers().allValues("Set-Cookie")).anySatisfy(c -> assertThat(c).startsWith("gshare_token=;")
        .contains("Max-Age=0").contains("HttpOnly"));
    assertThat(call("GET", "/api/v1/users/me", cookies, null).statusCode()).isEqualTo(401);
  }

  @Test
  void signInWithoutAnIdentityProviderSaysSoInWords() throws Exception {
    HttpResponse<String> login = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
        + SignInPaths.LOGIN)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(login.statusCode()).isEqualTo(404);
    assertThat(login.body()).contains("Sign-in is off").contains("gshare.oidc.issuer-uri");
  }

  @Test
  void onlyPathsOfThisSiteAreFollowedAfterSignIn() {
    assertThat(SignInFlow.safeNext("/sessions/ses_1")).isEqualTo("/sessions/ses_1");
    for (String elsewhere : new String[] {null, "https://evil.example.com/", "//evil.example.com", "/\\evil", "x"}) {
      assertThat(SignInFlow.safeNext(elsewhere)).as(elsewhere).isEqualTo("/");
    }
  }
}
