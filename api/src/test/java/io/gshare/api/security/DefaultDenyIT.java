package io.gshare.api.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.client.ApiResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
      ApiResponse response = send(method, path, method.equals("GET") || method.equals("DELETE") ? null : "{}", null);
      assertThat(response.status()).as(route).isEqualTo(401);
      assertThat(json.readTree(response.text()).get("code").asText()).as(route).isEqualTo("unauthorized");
    }
  }

  @Test
  void pathsNobodyNamedAnswer401AndTheOpenOnesAnswer() {
    for (String path : List.of("/actuator/prometheus", "/actuator/health", "/actuator/env", "/error",
        "/api/v1/openapi", "/static/x.js", "/.well-known/openid-configuration", "/internal/v1/nosuch", "/api/v1/nosuch")) {
      assertThat(get(path, null).status()).as(path).isEqualTo(401);
    }
    assertThat(get(OpenPaths.HEALTHZ, null).status()).isEqualTo(200);
    // The console's files are public; what they show comes from the API, which needs a token.
    assertThat(get("/", null).status()).isEqualTo(200);
    assertThat(get("/console/console.js", null).status()).isEqualTo(200);
    assertThat(get("/console/../application.yaml", null).status()).isIn(400, 401, 404);
    assertThat(send("POST", "/", "{}", null).status()).isEqualTo(401);
    assertThat(get(OpenPaths.INTERNAL_JWKS, null).status()).isEqualTo(200);
    // Reachable: it gives its own verdict to ingress-nginx (no cookie: 401 without a problem body).
    ApiResponse verify = get(OpenPaths.CONNECT_VERIFY, null);
    assertThat(verify.status()).isEqualTo(401);
    assertThat(verify.text()).isEmpty();
    ApiResponse envoyShape = get(OpenPaths.CONNECT_VERIFY + "/s/ses_x/lab", null);
    assertThat(envoyShape.status()).isEqualTo(401);
    assertThat(envoyShape.text()).isEmpty();
  }

  @Test
  void theManagementServerServesHealthAndMetricsWithoutAToken() {
    assertThat(getManagement("/actuator/health").status()).isEqualTo(200);
    ApiResponse metrics = getManagement("/actuator/prometheus");
    assertThat(metrics.status()).isEqualTo(200);
    assertThat(metrics.text()).contains("jvm_memory_used_bytes");
    // Only what is exposed: the environment stays closed.
    assertThat(getManagement("/actuator/env").status()).isEqualTo(404);
  }

  @Test
  void aNonAdminGets403BeforeItsBodyIsReadAndAnAdminGetsTheValidationError() {
    String user = tokenFor(newUser("user"));
    String admin = tokenFor(newUser("admin"));
    for (String invalid : List.of("{}", "{\"name\":\"\"}", "not json", "{\"unknown_field\":1}")) {
      ApiResponse denied = post("/api/v1/offerings", invalid, user);
      assertThat(denied.status()).as(invalid).isEqualTo(403);
      assertThat(denied.text()).as(invalid).contains("\"code\":\"forbidden\"").contains("requires the admin role");
    }
    assertThat(post("/api/v1/offerings", "{}", admin).status()).isEqualTo(422);
    assertThat(post("/api/v1/offerings", "not json", admin).status()).isEqualTo(400);
    // A super-admin action: an admin is refused before the body, too.
    assertThat(post("/api/v1/system/keys/nosuch/rotate", "not json", admin).status()).isEqualTo(403);
  }

  @Test
  void aRoleDenialIsAuditedOncePerMinute() {
    String userId = newUser("user");
    String user = tokenFor(userId);
    for (int i = 0; i < 3; i++) {
      assertThat(get("/api/v1/nodes", user).status()).isEqualTo(403);
    }
    assertThat(send("DELETE", "/api/v1/node-pools/pool_x", null, user).status()).isEqualTo(403);
    assertThat(jdbc.sql("select count(*) from audit_events where actor = :a and object_kind = 'node_pool' and object_id = 'pool_x'")
        .param("a", "user:" + userId).query(Integer.class).single()).isEqualTo(1);
    assertThat(jdbc.sql("""
        select count(*) from audit_events
         where actor = :a and action = 'access.denied' and object_kind = 'node' and reason = 'requires the admin role'
        """).param("a", "user:" + userId).query(Integer.class).single()).isEqualTo(1);
  }

  @Test
  void anAuthorizationHeaderOfAnotherSchemeIsRefusedByName() throws Exception {
    ApiResponse response = sendWithAuthorization("/api/v1/users/me", "Basic dXNlcjpwYXNz");
    assertThat(response.status()).isEqualTo(401);
    assertThat(json.readTree(response.text()).get("detail").asText()).contains("must be 'Bearer <token>'");
  }

  private ApiResponse sendWithAuthorization(String path, String authorization) {
    return send("GET", path, null, null, Map.of("Authorization", authorization));
  }
}
