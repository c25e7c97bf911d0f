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
 * Server-side apply ({@code PATCH} with {@code application/apply-patch+yaml}), which the fabric8 mock
 * lacks, reduced to what a single field manager needs: create the object when it is absent, else
 * replace what the applied configuration names (labels and annotations merged key by key) and keep
 * identity (uid, creationTimestamp). There is no field ownership: the last applier wins, which is what
 * gShare's one field manager per object would see on a real apiserver too.
 */
final class ServerSideApply {

  static final String CONTENT_TYPE = "application/apply-patch+yaml";

  private final Dispatcher crud;
  private final ObjectMapper json = new ObjectMapper();

  ServerSideApply(Dispatcher crud) {
    this.crud = crud;
  }

  static boolean isApply(RecordedRequest request) {
    String type = request.getHeader("Content-Type");
    return request.method() == HttpMethod.PATCH && type != null && type.startsWith(CONTENT_TYPE);
  }

  MockResponse apply(RecordedRequest request, String path) throws Exception {
    JsonNode applied = json.readTree(request.getUtf8Body());
    if (!(applied instanceof ObjectNode object) || !applied.path("metadata").hasNonNull("name")) {
      return status(400, "the applied configuration needs metadata.name");
    }
    String name = path.substring(path.lastIndexOf('/') + 1);
    if (!name.equals(applied.path("metadata").path("name").asText())) {
      return status(400, "metadata.name does not match the URL");
    }
    MockResponse current = send(HttpMethod.GET, path, null);
    if (current.code() == 404) {
      return send(HttpMethod.POST, path.substring(0, path.lastIndexOf('/')), applied.toString());
    }
    ObjectNode existing = (ObjectNode) json.readTree(new String(current.getBody().getBytes(), StandardCharsets.UTF_8));
    ObjectNode merged = existing.deepCopy();
    Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      if (!field.getKey().equals("metadata")) {
        merged.set(field.getKey(), field.getValue());
      }
    }
    ObjectNode metadata = (ObjectNode) merged.with("metadata");
    for (String map : new String[] {"labels", "annotations"}) {
      if (applied.path("metadata").has(map)) {
        ObjectNode target = metadata.with(map);
        applied.path("metadata").path(map).fields().forEachRemaining(e -> target.set(e.getKey(), e.getValue()));
      }
    }
    return send(HttpMethod.PUT, path, merged.toString());
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

  private MockResponse status(int code, String message) {
    return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
        .setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":" + code
            + ",\"message\":\"" + message + "\"}");
  }
}
