package io.gshare.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.client.ApiResponse;
import io.gshare.core.error.ProblemCode;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/** The OpenAPI document the api serves describes exactly the operations it handles, and how each can fail. */
class OpenApiDocumentIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;
  @Autowired @Qualifier("requestMappingHandlerMapping") RequestMappingHandlerMapping mappings;

  @Test
  void everyHandledOperationIsDocumentedAndNothingElse() throws Exception {
    ApiResponse response = get("/api/v1/openapi", tokenFor(newUser("user")));
    assertThat(response.status()).isEqualTo(200);
    JsonNode doc = json.readTree(response.text());

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
    // A record's wire enum is documented by its spellings (WireEnumJsonConfig), a null too where it may be one.
    assertThat(doc.at("/components/schemas/Node/properties/liveness/enum").toString())
        .isEqualTo("[\"ready\",\"not_ready\",\"offline\",null]");
    assertThat(doc.at("/components/schemas/Node/properties/gpu_mode/enum").toString())
        .isEqualTo("[\"exclusive\",\"fractional\",\"cpu\",\"storage\",null]");
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

  @Test
  void everyOperationDeclaresItsProblemsAndItsSuccess() throws Exception {
    JsonNode doc = json.readTree(get("/api/v1/openapi", tokenFor(newUser("user"))).text());

    Set<String> wireNames = new TreeSet<>();
    doc.at("/components/schemas/Problem/properties/code/enum").forEach(code -> wireNames.add(code.asText()));
    assertThat(wireNames).containsExactlyInAnyOrderElementsOf(
        Arrays.stream(ProblemCode.values()).map(ProblemCode::code).toList());
    assertThat(doc.at("/components/schemas/Problem/properties").has("errors")).isTrue();
    assertThat(doc.at("/components/schemas/Problem/properties").has("operation_id")).isTrue();

    Map<String, ProblemCode> byWireName = new TreeMap<>();
    Arrays.stream(ProblemCode.values()).forEach(code -> byWireName.put(code.code(), code));
    doc.get("paths").fields().forEachRemaining(path -> path.getValue().fields().forEachRemaining(op -> {
      String name = op.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey();
      JsonNode responses = op.getValue().get("responses");
      assertThat(responses.fieldNames()).as(name).toIterable().anyMatch(status -> status.startsWith("4"));
      responses.fields().forEachRemaining(response -> {
        JsonNode examples = response.getValue().at("/content/application~1problem+json/examples");
        // Each problem response's examples are its codes, and each code answers that very status.
        examples.fields().forEachRemaining(example -> {
          ProblemCode code = byWireName.get(example.getKey());
          assertThat(code).as(name + " " + response.getKey() + " example " + example.getKey()).isNotNull();
          if (!"default".equals(response.getKey())) {
            assertThat(code.status()).as(name + " " + example.getKey()).isEqualTo(Integer.parseInt(response.getKey()));
          }
          assertThat(example.getValue().at("/value/code").asText()).isEqualTo(example.getKey());
        });
      });
    }));

    // Spot checks of listed and derived codes.
    assertThat(codes(doc, "delete", "/api/v1/nodes/{id}", "409")).containsExactly("node_busy", "node_live");
    assertThat(codes(doc, "post", "/api/v1/sessions", "402")).containsExactly("insufficient_credits");
    assertThat(codes(doc, "post", "/api/v1/sessions", "409")).contains("unserviceable", "insufficient_capacity",
        "quota_exceeded", "volume_in_use");
    assertThat(codes(doc, "post", "/api/v1/nodes/{id}/drain", "503")).containsExactly("temporal_unavailable");
    assertThat(codes(doc, "post", "/api/v1/clusters/{id}/connection-test", "504")).containsExactly("cluster_unreachable");
    assertThat(codes(doc, "get", "/api/v1/clusters", "403")).containsExactly("forbidden");
    assertThat(codes(doc, "get", "/api/v1/sessions/{id}", "404")).containsExactly("not_found");
    assertThat(codes(doc, "put", "/api/v1/node-pools/{id}/nodes", "415")).containsExactly("unsupported_media_type");
    assertThat(doc.at("/paths/~1healthz/get/responses").has("401")).isFalse();
    assertThat(doc.at("/paths/~1healthz/get/security").isArray()).isTrue();
    assertThat(doc.at("/paths/~1healthz/get/security")).isEmpty();
    assertThat(doc.at("/paths/~1api~1v1~1users~1me/get/responses").has("403")).isFalse();

    // The documented success is what the handler answers: its @ResponseStatus, else 200 (handlers answering a
    // ResponseEntity or writing the response themselves declare theirs with @ApiResponse).
    mappings.getHandlerMethods().forEach((info, method) -> {
      if (!method.getBeanType().getPackageName().startsWith("io.gshare.api")) {
        return;
      }
      ResponseStatus status = AnnotatedElementUtils.findMergedAnnotation(method.getMethod(), ResponseStatus.class);
      Class<?> returned = method.getMethod().getReturnType();
      boolean declaresItsOwn = returned == ResponseEntity.class || Arrays.stream(
          method.getMethodParameters()).anyMatch(p -> p.getParameterType() == HttpServletResponse.class);
      info.getPatternValues().forEach(pattern -> info.getMethodsCondition().getMethods().forEach(m -> {
        Set<String> successes = new TreeSet<>();
        doc.at("/paths").path(pattern).path(m.name().toLowerCase(Locale.ROOT)).path("responses").fieldNames()
            .forEachRemaining(code -> {
              if (code.startsWith("2") || code.startsWith("3")) {
                successes.add(code);
              }
            });
        if (declaresItsOwn) {
          assertThat(successes).as(m + " " + pattern).isNotEmpty();
        } else {
          assertThat(successes).as(m + " " + pattern)
              .containsExactly(String.valueOf(status == null ? 200 : status.code().value()));
        }
      }));
    });
    assertThat(doc.at("/paths/~1api~1v1~1credits~1grants/post/responses").has("201")).isTrue();
    // A session command answers 200 once carried out, 202 while its cluster has not carried it out yet.
    for (String command : List.of("/paths/~1api~1v1~1sessions~1{id}~1pause/post", "/paths/~1api~1v1~1sessions~1{id}/delete")) {
      assertThat(doc.at(command + "/responses").has("200")).as(command).isTrue();
      assertThat(doc.at(command + "/responses").has("202")).as(command).isTrue();
      assertThat(doc.at(command + "/responses/202").findValuesAsText("$ref")).as(doc.at(command).toString())
          .containsExactly("#/components/schemas/SessionDetail");
    }
    assertThat(doc.at("/paths/~1auth~1logout/post/responses").has("204")).isTrue();
    assertThat(doc.at("/paths/~1auth~1logout/post/responses").has("200")).isFalse();
  }

  private static Set<String> codes(JsonNode doc, String method, String path, String status) {
    Set<String> codes = new TreeSet<>();
    doc.at("/paths").path(path).path(method).path("responses").path(status).path("content")
        .path("application/problem+json").path("examples").fieldNames().forEachRemaining(codes::add);
    return codes;
  }
}
