package io.gshare.api.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/** Default-deny: no token opens anything but the three paths the seeds need; roles before bodies. */
class DefaultDenyIT extends ApiIntegrationTest {

  // The verify paths give their own verdicts (ConnectVerifyIT): the ingress-nginx shape and Envoy Gateway's.
  private static final Set<String> OPEN = Set.of(OpenPaths.HEALTHZ, OpenPaths.INTERNAL_JWKS, OpenPaths.CONNECT_VERIFY,
      OpenPaths.CONNECT_VERIFY + "/**", SignInPaths.LOGIN, SignInPaths.LOGOUT,
      SignInPaths.CONNECT, SignInPaths.CLI,
      SignInPaths.CLI_TOKEN);

  @Autowired ObjectMapper json;
  @Autowired @Qualifier("requestMappingHandlerMapping") RequestMappingHandlerMapping mappings;

  @Test
  void everyHandledRouteButTheOpenOnesAnswers401WithoutAToken() throws Exception {
    List<String> routes = new ArrayList<>();
    mappings.getHandlerMethods().forEach((info, method) -> info.getPatternValues().forEach(pattern ->
        info.getMethodsCondition().getMethods().forEach(m -> routes.add(m.name() + " " + pattern))));
    assertThat(routes).hasSizeGreaterThan(40);
    for (String route : routes) {
      String method = route.substring(0, route.indexOf(' '));
      String path = route.substring(route.indexOf(' ') + 1).replaceAll("\\{[^}]+}", "x");
      if (OPEN.contains(path)) {
        continue;
      }
      HttpResponse<String> response = send(method, path, method.equals("GET") || method.equals("DELETE") ? null : "{}", null);
      assertThat(response.statusCode()).as(route).isEqualTo(401);
      assertThat(json.readTree(response.body()).get("code").asText()).as(route).isEqualTo("unauthorized");
    }
  }

  @Test
  void pathsNobodyNamedAnswer401AndTheOpenOnesAnswer() {
    for (String path : List.of("/actuator/prometheus", "/actuator/health", "/actuator/env", "/error",
        "/api/v1/openapi", "/static/x.js", "/.well-known/openid-configuration", "/internal/v1/nosuch", "/api/v1/nosuch")) {
      assertThat(get(path, null).statusCode()).as(path).isEqualTo(401);
    }
    assertThat(get(OpenPaths.HEALTHZ, null).statusCode()).isEqualTo(200);
    // The console's files are public; what they show comes from the API, which needs a token.
    assertThat(get("/", null).statusCode()).isEqualTo(200);
    assertThat(get("/console/console.js", null).statusCode()).isEqualTo(200);
    assertThat(get("/console/../application.yaml", null).statusCode()).isIn(400, 401, 404);
    assertThat(send("POST", "/", "{}", null).statusCode()).isEqualTo(401);
    assertThat(get(OpenPaths.INTERNAL_JWKS, null).statusCode()).isEqualTo(200);
    // Reachable: it gives its own verdict to ingress-nginx (no cookie: 401 without a problem body).
    HttpResponse<String> verify = get(OpenPaths.CONNECT_VERIFY, null);
    assertThat(verify.statusCode()).isEqualTo(401);
    assertThat(verify.body()).isEmpty();
    HttpResponse<String> envoyShape = get(OpenPaths.CONNECT_VERIFY + "/s/ses_x/lab", null);
    assertThat(envoyShape.statusCode()).isEqualTo(401);
    assertThat(envoyShape.body()).isEmpty();
  }

  @Test
  void theManagementServerServesHealthAndMetricsWithoutAToken() {
    assertThat(getManagement("/actuator/health").statusCode()).isEqualTo(200);
    HttpResponse<String> metrics = getManagement("/actuator/prometheus");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body()).contains("jvm_memory_used_bytes");
    // Only what is exposed: the environment stays closed.
    assertThat(getManagement("/actuator/env").statusCode()).isEqualTo(404);
  }

  @Test
  void aNonAdminGets403BeforeItsBodyIsReadAndAnAdminGetsTheValidationError() {
    String user = tokenFor(newUser("user"));
    String admin = tokenFor(newUser("admin"));
    for (String invalid : List.of("{}", "{\"name\":\"\"}", "not json", "{\"unknown_field\":1}")) {
      HttpResponse<String> denied = post("/api/v1/offerings", invalid, user);
      assertThat(denied.statusCode()).as(invalid).isEqualTo(403);
      assertThat(denied.body()).as(invalid).contains("\"code\":\"forbidden\"").contains("requires the admin role");
    }
    assertThat(post("/api/v1/offerings", "{}", admin).statusCode()).isEqualTo(422);
    assertThat(post("/api/v1/offerings", "not json", admin).statusCode()).isEqualTo(400);
    // A super-admin action: an admin is refused before the body, too.
    assertThat(post("/api/v1/system/keys/nosuch/rotate", "not json", admin).statusCode()).isEqualTo(403);
  }

  @Test
  void aRoleDenialIsAuditedOncePerMinute() {
    String userId = newUser("user");
    String user = tokenFor(userId);
    for (int i = 0; i < 3; i++) {
      assertThat(get("/api/v1/nodes", user).statusCode()).isEqualTo(403);
    }
    assertThat(send("DELETE", "/api/v1/node-pools/pool_x", null, user).statusCode()).isEqualTo(403);
    assertThat(jdbc.sql("select count(*) from audit_events where actor = :a and object_kind = 'node_pool' and object_id = 'pool_x'")
        .param("a", "user:" + userId).query(Integer.class).single()).isEqualTo(1);
    assertThat(jdbc.sql("""
        select count(*) from audit_events
         where actor = :a and action = 'access.denied' and object_kind = 'node' and reason = 'requires the admin role'
        """).param("a", "user:" + userId).query(Integer.class).single()).isEqualTo(1);
  }

  @Test
  void anAuthorizationHeaderOfAnotherSchemeIsRefusedByName() throws Exception {
    HttpResponse<String> response = sendWithAuthorization("/api/v1/users/me", "Basic dXNlcjpwYXNz");
    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(json.readTree(response.body()).get("detail").asText()).contains("must be 'Bearer <token>'");
  }

  private HttpResponse<String> sendWithAuthorization(String path, String authorization) throws Exception {
    var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Authorization", authorization).GET().build();
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
  }
}
