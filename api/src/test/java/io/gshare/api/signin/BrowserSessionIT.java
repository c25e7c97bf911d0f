package io.gshare.api.signin;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.api.security.SignInPaths;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.client.ApiResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A browser's token in its cookie: reads need only the cookie, state-changing calls the CSRF header too, and sign-out
 * revokes the token. (The sign-in through a real OpenID Connect provider is DevRuntimeIT's: this api has none.)
 */
class BrowserSessionIT extends ApiIntegrationTest {

  /** A browser's call: its cookies (no bearer header) and, when given, the CSRF header. */
  private ApiResponse call(String method, String path, String cookies, String csrf) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Cookie", cookies);
    headers.put("Content-Type", "application/json");
    if (csrf != null) {
      headers.put("X-CSRF-Token", csrf);
    }
    return send(method, path, method.equals("GET") ? null
        : "{\"name\":\"cookie-team-" + System.nanoTime() + "\"}", null, headers);
  }

  @Test
  void theCookieOpensReadsTheCsrfHeaderGuardsWritesAndSignOutRevokes() throws Exception {
    String token = tokenFor(newUser("admin"));
    String cookies = "gshare_token=" + token + "; gshare_csrf=abc123";
    ApiResponse me = call("GET", "/api/v1/users/me", cookies, null);
    assertThat(me.status()).isEqualTo(200);
    // An hour left of an 8-hour browser sign-in: less than half, so the active browser gets a fresh token (and
    // keeps its CSRF cookie). A bearer header is never renewed.
    assertThat(me.headers().allValues("Set-Cookie")).singleElement().satisfies(c -> assertThat(c)
        .startsWith("gshare_token=").doesNotContain("gshare_token=" + token + ";").contains("HttpOnly")
        .contains("Max-Age=28800"));
    assertThat(get("/api/v1/users/me", token).headers().allValues("Set-Cookie")).isEmpty();

    ApiResponse forged = call("POST", "/api/v1/teams", cookies, null);
    assertThat(forged.status()).isEqualTo(401);
    assertThat(forged.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
    assertThat(forged.text()).contains("X-CSRF-Token");
    assertThat(call("POST", "/api/v1/teams", cookies, "wrong").status()).isEqualTo(401);
    assertThat(call("POST", "/api/v1/teams", cookies, "abc123").status()).isEqualTo(201);
    // A bearer header needs no CSRF header: no browser sends one on its own.
    assertThat(post("/api/v1/teams", "{\"name\":\"bearer-team-" + System.nanoTime() + "\"}", token).status())
        .isEqualTo(201);

    assertThat(call("POST", "/auth/logout", cookies, "nope").status()).isEqualTo(403);
    ApiResponse out = call("POST", "/auth/logout", cookies, "abc123");
    assertThat(out.status()).isEqualTo(204);
    assertThat(out.headers().allValues("Set-Cookie")).anySatisfy(c -> assertThat(c).startsWith("gshare_token=;")
        .contains("Max-Age=0").contains("HttpOnly"));
    assertThat(call("GET", "/api/v1/users/me", cookies, null).status()).isEqualTo(401);
  }

  @Test
  void signInWithoutAnIdentityProviderSaysSoInWords() throws Exception {
    ApiResponse login = get(SignInPaths.LOGIN, null);
    assertThat(login.status()).isEqualTo(404);
    assertThat(login.text()).contains("Sign-in is off").contains("gshare.oidc.issuer-uri");
  }

  @Test
  void onlyPathsOfThisSiteAreFollowedAfterSignIn() {
    assertThat(SignInFlow.safeNext("/sessions/ses_1")).isEqualTo("/sessions/ses_1");
    for (String elsewhere : new String[] {null, "https://evil.example.com/", "//evil.example.com", "/\\evil", "x"}) {
      assertThat(SignInFlow.safeNext(elsewhere)).as(elsewhere).isEqualTo("/");
    }
  }
}
