package io.gshare.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;

/**
 * Strategic merge patch ({@code PATCH} with {@code application/strategic-merge-patch+json}: what
 * {@code kubectl cordon}, {@code uncordon} and {@code patch} send), which the fabric8 mock refuses with
 * 415. It is applied as a JSON merge patch (RFC 7386): objects merge key by key, {@code null} removes a
 * key, anything else replaces. That is what a strategic merge patch does wherever the schema declares
 * no list merge key ({@code spec.unschedulable}, labels, annotations, scalars). Lists are replaced
 * whole, never merged by key (containers by name, say), and patch directives ({@code $patch},
 * {@code $setElementOrder/...}, {@code $retainKeys}, {@code $deleteFromPrimitiveList/...}) are refused
 * with 400 rather than misapplied.
 *
 * <p>The result is written back with the resourceVersion read, so a concurrent write (the kubelet
 * simulator's status update) makes the write conflict; the patch is then re-applied to the new state,
 * as the apiserver retries a patch internally.
 */
final class StrategicMergePatch {

  static final String CONTENT_TYPE = "application/strategic-merge-patch+json";
  /**
   * A JSON merge patch (RFC 7386) is applied here too: the fabric8 mock's own stores {@code null} as a
   * value instead of removing the key, which is not what an apiserver does.
   */
  static final String MERGE_PATCH = "application/merge-patch+json";
  private static final int ATTEMPTS = 5;

  private final Dispatcher crud;
  private final ObjectMapper json = new ObjectMapper();

  StrategicMergePatch(Dispatcher crud) {
    this.crud = crud;
  }

  static boolean isStrategicMergePatch(RecordedRequest request) {
    String type = request.getHeader("Content-Type");
    return request.method() == HttpMethod.PATCH && type != null && (type.startsWith(CONTENT_TYPE) || type.startsWith(MERGE_PATCH));
  }

  MockResponse apply(RecordedRequest request, String path) throws Exception {
    JsonNode patch = json.readTree(request.getUtf8Body());
    if (patch == null || !patch.isObject()) {
      return ApiStatus.failure(400, "BadRequest", "a strategic merge patch must be a JSON object", null);
    }
    String directive = directive(patch, "");
    if (directive != null) {
      return ApiStatus.failure(400, "BadRequest", "the gShare simulator applies a strategic merge patch as a JSON merge "
          + "patch and does not support the patch directive " + directive, null);
    }
    boolean precondition = patch.path("metadata").hasNonNull("resourceVersion");
    MockResponse answer = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      MockResponse current = send(HttpMethod.GET, path, null);
      if (current.code() == 404) {
        String name = path.replaceAll("/status$", "");
        String plural = name.substring(0, name.lastIndexOf('/'));
        return ApiStatus.notFound(plural.substring(plural.lastIndexOf('/') + 1), name.substring(name.lastIndexOf('/') + 1));
      }
      JsonNode merged = merge(json.readTree(body(current)), patch);
      answer = send(HttpMethod.PUT, path, json.writeValueAsString(merged));
      if (answer.code() != 409 || precondition) {
        return answer;
      }
    }
    return answer;
  }

  /** RFC 7386: {@code patch} merged into (a copy of) {@code target}. */
  static JsonNode merge(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    ObjectNode result = target != null && target.isObject() ? ((ObjectNode) target).deepCopy() : new ObjectMapper().createObjectNode();
    Iterator<Map.Entry<String, JsonNode>> fields = patch.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      if (field.getValue().isNull()) {
        result.remove(field.getKey());
      } else {
        result.set(field.getKey(), merge(result.get(field.getKey()), field.getValue()));
      }
    }
    return result;
  }

  /** The first strategic-merge directive key in {@code node} (at any depth), or null. */
  private static String directive(JsonNode node, String where) {
    if (node.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> field = fields.next();
        String at = where + "/" + field.getKey();
        if (field.getKey().startsWith("$")) {
          return field.getKey() + " (at " + at + ")";
        }
        String inner = directive(field.getValue(), at);
        if (inner != null) {
          return inner;
        }
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        String inner = directive(node.get(i), where + "/" + i);
        if (inner != null) {
          return inner;
        }
      }
    }
    return null;
  }

  private MockResponse send(HttpMethod method, String path, String body) {
    Headers.Builder headers = Headers.builder();
    Buffer buffer = new Buffer();
    if (body != null) {
      buffer.writeUtf8(body);
      headers.add("Content-Type", "application/json");
      headers.add("Content-Length", String.valueOf(body.getBytes(StandardCharsets.UTF_8).length));
    }
    return crud.dispatch(new RecordedRequest("HTTP/1.1", method, path, headers.build(), buffer));
  }

  private static String body(MockResponse response) {
    return response.getBody() == null ? "" : new String(response.getBody().getBytes(), StandardCharsets.UTF_8);
  }
}
