package io.gshare.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.client.ApiCallException;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * No undeclared responses: generated from the served OpenAPI document, so a new endpoint is covered without a test of
 * its own. Every documented operation is called without a token, with a user's, a super admin's and a cluster-worker's
 * token, unknown ids ({@code nonexistent_...}) in its path variables, a {@code {}} JSON body where it takes one and
 * the Accept header of its success answer where that names a media type; then, by the caller that gets furthest, once
 * with a malformed JSON body and once asking for a media type nothing answers. Every answer must be below 500 and
 * declared for its operation; a 4xx declared as {@code application/problem+json} must be one, with a {@code code} the
 * document lists for that status there (its examples); one declared otherwise (a sign-in page, an ingress verdict)
 * must have the declared media type, or no body when none is declared. Each call and its answer go to
 * {@code target/contract-responses.txt}.
 */
class ContractResponsesIT extends ApiIntegrationTest {

  /** Operations left out of the sweep, each with why ("GET /path" → reason). None today. */
  private static final Map<String, String> SKIPPED = Map.of();

  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final Pattern PATH_VARIABLE = Pattern.compile("\\{([^}]+)}");
  private static final String PROBLEM_JSON = "application/problem+json";
  /** A media type no operation answers: content negotiation must still end in a declared answer. */
  private static final String UNACCEPTABLE = "application/x-gshare-unknown";

  @Autowired ObjectMapper json;
  /** Every call and its answer, written to target/contract-responses.txt for a reader of a failure. */
  private final List<String> answers = new ArrayList<>();

  private record Caller(String name, String token) {}

  private record Answer(int status, String contentType, String body) {}

  @Test
  void everyAnswerIsDeclaredForItsOperation() throws Exception {
    String admin = adminToken();
    JsonNode doc = json.readTree(get("/api/v1/openapi", admin).text());
    List<Caller> callers = List.of(new Caller("no token", null), new Caller("user", tokenFor(newUser("user"))),
        new Caller("super admin", admin), new Caller("cluster-worker", operatorToken(SIM_CLUSTER_ID)));
    // PUT /api/v1/policies/default with {} is a valid whole policy: put back what other tests may rely on.
    String defaultPolicy = policyInput(get("/api/v1/policies/default", admin).text());

    List<String> failures = new ArrayList<>();
    Map<String, Integer> seen = new TreeMap<>();
    int operations = 0;
    try {
      for (Iterator<Map.Entry<String, JsonNode>> paths = doc.get("paths").fields(); paths.hasNext(); ) {
        Map.Entry<String, JsonNode> path = paths.next();
        for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
          Map.Entry<String, JsonNode> op = ops.next();
          String method = op.getKey().toUpperCase(Locale.ROOT);
          String name = method + " " + path.getKey();
          if (SKIPPED.containsKey(name)) {
            continue;
          }
          operations++;
          JsonNode operation = op.getValue();
          String target = concrete(path.getKey());
          boolean takesBody = operation.has("requestBody");
          String accept = accept(operation);
          for (Caller caller : callers) {
            Answer answer = call(method, target, takesBody ? "{}" : null, caller.token(), accept);
            check(name, caller.name() + (takesBody ? ", {}" : ""), operation, answer, failures);
            seen.merge(answer.status() + "", 1, Integer::sum);
          }
          // The caller that gets furthest: past the token chain and the role checks.
          String furthest = path.getKey().startsWith("/internal/") ? operatorToken(SIM_CLUSTER_ID) : admin;
          if (takesBody) {
            Answer answer = call(method, target, "{\"malformed\": ", furthest, accept);
            check(name, "malformed JSON", operation, answer, failures);
            seen.merge(answer.status() + "", 1, Integer::sum);
          }
          Answer unacceptable = call(method, target, takesBody ? "{}" : null, furthest, UNACCEPTABLE);
          check(name, "Accept " + UNACCEPTABLE, operation, unacceptable, failures);
          seen.merge(unacceptable.status() + "", 1, Integer::sum);
        }
      }
    } finally {
      assertThat(call("PUT", "/api/v1/policies/default", defaultPolicy, admin, null).status()).isEqualTo(200);
    }
    Files.write(Path.of("target", "contract-responses.txt"), answers);
    System.out.printf("ContractResponsesIT: %d operations swept, answers by status %s, skipped %s%n", operations, seen,
        SKIPPED);
    assertThat(SKIPPED.keySet()).as("skipped operations the document still has").allSatisfy(skipped -> {
      String[] parts = skipped.split(" ", 2);
      assertThat(doc.at("/paths").path(parts[1]).has(parts[0].toLowerCase(Locale.ROOT))).isTrue();
    });
    assertThat(operations).isGreaterThan(90);
    assertThat(failures).as("answers the document does not declare").isEmpty();
  }

  private void check(String operationName, String how, JsonNode operation, Answer answer, List<String> failures) {
    answers.add(operationName + " (" + how + "): " + answer.status() + " " + answer.contentType() + " "
        + abbreviate(answer.body()).replaceAll(".*\"code\":\"([a-z_]+)\".*", "$1"));
    String where = operationName + " (" + how + ") answered " + answer.status() + " " + answer.contentType() + ": "
        + abbreviate(answer.body());
    if (answer.status() >= 500) {
      failures.add(where + " [a server error]");
      return;
    }
    JsonNode declared = operation.path("responses").path(String.valueOf(answer.status()));
    if (declared.isMissingNode()) {
      failures.add(where + " [status not declared; declared: " + fieldNames(operation.path("responses")) + "]");
      return;
    }
    if (answer.status() < 400) {
      return;
    }
    JsonNode content = declared.path("content");
    if (content.has(PROBLEM_JSON)) {
      if (!answer.contentType().startsWith(PROBLEM_JSON)) {
        failures.add(where + " [not " + PROBLEM_JSON + "]");
        return;
      }
      JsonNode problem;
      try {
        problem = json.readTree(answer.body());
      } catch (IOException e) {
        failures.add(where + " [not JSON]");
        return;
      }
      Set<String> codes = fieldNames(content.path(PROBLEM_JSON).path("examples"));
      if (!codes.contains(problem.path("code").asText())) {
        failures.add(where + " [code not among " + codes + "]");
      } else if (problem.path("status").asInt() != answer.status()) {
        failures.add(where + " [status member " + problem.path("status") + "]");
      }
    } else if (content.isEmpty()) {
      if (!answer.body().isEmpty()) {
        failures.add(where + " [a body where none is declared]");
      }
    } else if (fieldNames(content).stream().noneMatch(type -> answer.contentType().startsWith(type))) {
      failures.add(where + " [not one of " + fieldNames(content) + "]");
    }
  }

  /**
   * What a client of the operation asks for: the media types of its success answer when it names them (an event
   * stream's {@code text/event-stream}, as a browser's EventSource sends it), else nothing (any).
   */
  private static String accept(JsonNode operation) {
    for (Iterator<Map.Entry<String, JsonNode>> responses = operation.path("responses").fields(); responses.hasNext(); ) {
      Map.Entry<String, JsonNode> response = responses.next();
      if (response.getKey().startsWith("2")) {
        Set<String> types = fieldNames(response.getValue().path("content"));
        return types.isEmpty() || types.contains("*/*") ? null : String.join(", ", types);
      }
    }
    return null;
  }

  /** The route with an unknown id of a valid shape in each path variable, and a session URL's path for {@code **}. */
  private static String concrete(String route) {
    Matcher variables = PATH_VARIABLE.matcher(route);
    StringBuilder path = new StringBuilder();
    while (variables.find()) {
      variables.appendReplacement(path, "nonexistent_" + variables.group(1).toLowerCase(Locale.ROOT));
    }
    variables.appendTail(path);
    return path.toString().replace("/**", "/s/nonexistent_session/");
  }

  /** The policy as PUT takes it back (everything GET answers but the team). */
  private String policyInput(String policy) throws IOException {
    ObjectNode input = (ObjectNode) json.readTree(policy);
    input.remove("team_id");
    return json.writeValueAsString(input);
  }

  /**
   * One call, bounded in time: the status and type as soon as the headers come, the body unless it is an event stream
   * (a stream that opened is an answer in itself; it is closed unread).
   */
  private Answer call(String method, String path, String body, String token, String accept) throws Exception {
    HttpResponse<InputStream> response;
    try {
      // What a client of the operation asks for: its media types where it names them, else any.
      response = api(token).timeout(TIMEOUT)
          .stream(method, path, body, Map.of("Accept", accept == null ? "*/*" : accept));
    } catch (ApiCallException e) {
      if (e.getCause() instanceof HttpTimeoutException) {
        return new Answer(599, "", "no answer within " + TIMEOUT.toSeconds() + " s");
      }
      throw e;
    }
    String type = response.headers().firstValue("Content-Type").orElse("");
    if (type.startsWith("text/event-stream")) {
      response.body().close();
      return new Answer(response.statusCode(), type, "");
    }
    CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> {
      try (InputStream in = response.body()) {
        return in.readAllBytes();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
    try {
      return new Answer(response.statusCode(), type,
          new String(read.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS), StandardCharsets.UTF_8));
    } catch (TimeoutException | ExecutionException e) {
      response.body().close();
      return new Answer(599, type, "the body did not end within " + TIMEOUT.toSeconds() + " s");
    }
  }

  private static Set<String> fieldNames(JsonNode node) {
    Set<String> names = new TreeSet<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static String abbreviate(String body) {
    String flat = body.replaceAll("\\s+", " ");
    return flat.length() > 300 ? flat.substring(0, 300) + "..." : flat;
  }
}
