package io.gshare.api.error;

import io.gshare.core.error.ProblemCode;
import io.swagger.v3.oas.models.examples.Example;
import io.swagger.v3.oas.models.media.ArraySchema;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springdoc.core.customizers.OperationCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The error contract in the served OpenAPI document: the {@code Problem} schema every error takes, and per
 * operation one response per status it can answer ({@link ProblemRules}: its {@link ProblemResponses} and what its
 * shape implies), each naming its codes with one example per code. The {@code default} response stands for the
 * rest (500 {@code internal}).
 */
@Configuration(proxyBeanMethods = false)
class ProblemDocumentation {

  static final String PROBLEM = "Problem";
  static final String PROBLEM_JSON = org.springframework.http.MediaType.APPLICATION_PROBLEM_JSON_VALUE;
  private static final String PROBLEM_REF = "#/components/schemas/" + PROBLEM;

  @Bean
  OperationCustomizer problemResponses() {
    return (operation, handler) -> {
      ApiResponses responses = operation.getResponses() == null ? new ApiResponses() : operation.getResponses();
      Map<Integer, List<ProblemCode>> byStatus = ProblemRules.of(handler).stream()
          .collect(Collectors.groupingBy(ProblemCode::status, TreeMap::new, Collectors.toList()));
      byStatus.forEach((status, codes) -> {
        // A response the handler declares itself (a sign-in page, an ingress verdict) stays as declared.
        if (!responses.containsKey(String.valueOf(status))) {
          responses.addApiResponse(String.valueOf(status), response(codes));
        }
      });
      operation.setResponses(responses);
      if (!ProblemRules.needsToken(handler)) {
        // As it declares no 401: the document's global bearer requirement does not apply here.
        operation.setSecurity(List.of());
      }
      return operation;
    };
  }

  /** The Problem schema, and {@code default} on every operation for what no status lists. */
  @Bean
  OpenApiCustomizer problemSchema() {
    return openApi -> {
      openApi.getComponents().addSchemas(PROBLEM, schema());
      ApiResponse other = new ApiResponse()
          .description("Any other failure, e.g. 500 `internal` (" + ProblemCode.INTERNAL.title() + ")")
          .content(problemContent(Map.of(ProblemCode.INTERNAL.code(), example(ProblemCode.INTERNAL))));
      openApi.getPaths().values().forEach(path -> path.readOperations()
          .forEach(operation -> operation.getResponses().addApiResponse("default", other)));
    };
  }

  static ApiResponse response(List<ProblemCode> codes) {
    Map<String, Example> examples = new LinkedHashMap<>();
    codes.forEach(code -> examples.put(code.code(), example(code)));
    return new ApiResponse()
        .description(codes.stream().map(c -> "`" + c.code() + "` (" + c.title() + ")").collect(Collectors.joining(", ")))
        .content(problemContent(examples));
  }

  private static Content problemContent(Map<String, Example> examples) {
    return new Content().addMediaType(PROBLEM_JSON,
        new MediaType().schema(new Schema<>().$ref(PROBLEM_REF)).examples(examples));
  }

  static Example example(ProblemCode code) {
    Map<String, Object> value = new LinkedHashMap<>();
    value.put("type", code.type().toString());
    value.put("title", code.title());
    value.put("status", code.status());
    value.put("detail", ProblemExamples.detail(code));
    value.put("code", code.code());
    value.putAll(ProblemExamples.members(code));
    return new Example().summary(code.title()).value(value);
  }

  /** RFC 9457's members, {@code code} as an enum of every wire name, and the members this API adds. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  static Schema<?> schema() {
    List<String> wireNames = Arrays.stream(ProblemCode.values()).map(ProblemCode::code).toList();
    Schema<Object> fieldError = new ObjectSchema()
        .addProperty("field", new StringSchema().description("the request member, e.g. size_gb"))
        .addProperty("message", new StringSchema().description("what is wrong with it"))
        .required(List.of("field", "message"));
    Schema problem = new ObjectSchema()
        .description("An RFC 9457 problem document. Clients switch on `code`; members beyond these carry the"
            + " problem's context (e.g. `session_id` of `volume_in_use`, `balance` and `required` of"
            + " `insufficient_credits`).")
        .addProperty("type", new StringSchema().format("uri").description("urn:gshare:problem:<code>")
            .example(ProblemCode.NOT_FOUND.type().toString()))
        .addProperty("title", new StringSchema().description("the code's title"))
        .addProperty("status", new IntegerSchema().description("the HTTP status"))
        .addProperty("detail", new StringSchema().description("what happened, for a person"))
        .addProperty("instance", new StringSchema().description("the request path"))
        .addProperty("code", new StringSchema()._enum(wireNames).description("the stable problem code"))
        .addProperty("errors", new ArraySchema().items(fieldError)
            .description("validation_failed: the invalid members of the request"))
        .addProperty("operation_id", new StringSchema()
            .description("operation_in_progress (and some conflicts): the operation to follow, GET /api/v1/operations/{id}"))
        .addProperty("retry_after_seconds", new IntegerSchema()
            .description("rate_limited: when to send again, as the Retry-After header says"))
        .required(List.of("type", "title", "status", "code"));
    problem.setAdditionalProperties(Boolean.TRUE);
    return problem;
  }
}
