package io.gshare.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import java.net.http.HttpResponse;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/** The OpenAPI document the api serves describes exactly the operations it handles. */
class OpenApiDocumentIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;
  @Autowired @Qualifier("requestMappingHandlerMapping") RequestMappingHandlerMapping mappings;

  @Test
  void everyHandledOperationIsDocumentedAndNothingElse() throws Exception {
    HttpResponse<String> response = get("/api/v1/openapi", tokenFor(newUser("user")));
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode doc = json.readTree(response.body());

    Set<String> documented = new TreeSet<>();
    doc.get("paths").fields().forEachRemaining(path -> path.getValue().fieldNames()
        .forEachRemaining(method -> documented.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey())));

    Set<String> handled = new TreeSet<>();
    mappings.getHandlerMethods().forEach((info, method) -> {
      if (!method.getBeanType().getPackageName().startsWith("io.gshare.api")) {
        return;
      }
      info.getPatternValues().forEach(pattern -> info.getMethodsCondition().getMethods()
          .forEach(m -> handled.add(m.name() + " " + pattern)));
    });

    assertThat(handled).contains("GET /healthz", "GET /api/v1/system", "POST /api/v1/clusters/{id}/connection-test",
        "GET /.well-known/gshare-internal-jwks.json", "GET /internal/connect/verify", "POST /internal/v1/inventory");
    assertThat(documented).isEqualTo(handled);
    assertThat(doc.at("/info/title").asText()).isEqualTo("gShare API");
    // The caller comes from the token, never from parameters.
    doc.get("paths").forEach(path -> path.forEach(operation -> operation.path("parameters").forEach(parameter -> {
      if (!"path".equals(parameter.path("in").asText())) {
        assertThat(parameter.get("name").asText()).isNotIn("userId", "role", "teamId", "tokenId", "clusterId", "caller");
      }
    })));
    doc.get("paths").forEach(path -> path.forEach(operation -> assertThat(
        operation.at("/responses/default/content/application~1problem+json/schema/$ref").asText())
        .isEqualTo("#/components/schemas/Problem")));
  }
}
