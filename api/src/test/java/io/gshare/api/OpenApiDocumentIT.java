package io.gshare.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/** The OpenAPI document the api serves describes exactly the operations it handles. */
class OpenApiDocumentIT extends ApiIntegrationTest {

  @LocalServerPort int port;
  @Autowired ObjectMapper json;
  @Autowired @Qualifier("requestMappingHandlerMapping") RequestMappingHandlerMapping mappings;

  @Test
  void everyHandledOperationIsDocumentedAndNothingElse() throws Exception {
    HttpResponse<String> response = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/openapi")).GET().build(),
        HttpResponse.BodyHandlers.ofString());
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

    assertThat(handled).contains("GET /healthz", "GET /api/v1/system", "POST /api/v1/clusters/{id}/connection-test");
    assertThat(documented).isEqualTo(handled);
    assertThat(doc.at("/info/title").asText()).isEqualTo("gShare API");
    doc.get("paths").forEach(path -> path.forEach(operation -> assertThat(
        operation.at("/responses/default/content/application~1problem+json/schema/$ref").asText())
        .isEqualTo("#/components/schemas/Problem")));
  }
}
