package io.gshare.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassList;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatch;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the apiserver does to a PersistentVolumeClaim write before storing it, in front of the fabric8
 * CRUD mock (which stores whatever it is sent). Every write path of the simulator goes through it: a
 * client's POST, PUT and JSON patch, and the JSON merge patches, strategic merge patches and
 * server-side applies the simulator turns into PUTs and POSTs.
 *
 * <ul>
 *   <li><b>Create</b>: a claim without {@code spec.resources.requests.storage} or {@code spec.accessModes}
 *       is 422 Invalid; otherwise the {@code kubernetes.io/pvc-protection} finalizer is added (the
 *       StorageObjectInUseProtection plugin), a claim with no {@code storageClassName} gets the default
 *       class (the DefaultStorageClass plugin; the newest when several are marked), {@code volumeMode}
 *       defaults to Filesystem and {@code status} is reset to {@code phase: Pending}.
 *   <li><b>Update</b> (PUT, JSON patch): {@code status} is kept as stored (it is a subresource). Raising
 *       the storage request of a bound claim whose class does not have {@code allowVolumeExpansion: true}
 *       is 403 Forbidden (the PersistentVolumeClaimResize plugin); changing it on an unbound claim is
 *       422 (requests are immutable until bound); lowering it to or below {@code status.capacity} is 422
 *       (Kubernetes 1.34+ allows a lower request only above the capacity, to recover from a failed
 *       expansion).
 *   <li><b>Delete</b>: the mock marks a claim that still has finalizers with a deletionTimestamp; the
 *       storage controller is then run at once, so a claim no pod uses goes immediately.
 * </ul>
 *
 * <p>Simplification: {@code spec.volumeName}, {@code storageClassName} and {@code volumeMode} missing
 * from an update are kept from the stored claim instead of being refused as changes to an immutable
 * spec, because the simulator's server-side apply replaces {@code spec} whole (it has no field
 * ownership); no other spec field is checked for immutability.
 */
final class ClaimAdmission extends Dispatcher {

  static final Pattern CLAIMS = Pattern.compile("/api/v1/namespaces/([^/]+)/persistentvolumeclaims/?");
  static final Pattern CLAIM = Pattern.compile("/api/v1/namespaces/([^/]+)/persistentvolumeclaims/([^/]+)/?");
  static final String FORBIDDEN_RESIZE =
      "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize";
  static final String BELOW_CAPACITY = "field can not be less than status.capacity";
  static final String IMMUTABLE_SPEC =
      "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims";
  private static final String JSON_PATCH = "application/json-patch+json";
  private static final int ATTEMPTS = 5;

  private record Cause(String field, String type, String reason, String detail) {}

  private final Dispatcher crud;
  private final ObjectStore raw;
  private final ObjectMapper json = new ObjectMapper();
  private volatile Runnable afterDelete = () -> {};

  ClaimAdmission(Dispatcher crud, KubernetesSerialization serialization) {
    this.crud = crud;
    this.raw = new ObjectStore(crud, serialization);
  }

  /** Run after a claim (or a namespace's claims) was deleted: the storage controller's pass. */
  void afterDelete(Runnable action) {
    this.afterDelete = action;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    String path = request.getPath();
    int query = path.indexOf('?');
    String bare = query < 0 ? path : path.substring(0, query);
    Matcher one = CLAIM.matcher(bare);
    Matcher all = CLAIMS.matcher(bare);
    try {
      HttpMethod method = request.method();
      if (method == HttpMethod.POST && all.matches()) {
        return create(request, bare);
      }
      if (method == HttpMethod.PUT && one.matches()) {
        String body = body(request);
        JsonNode updated = json.readTree(body);
        JsonNode current = current(bare);
        if (current == null || !(updated instanceof ObjectNode object)) {
          return crud.dispatch(replay(request, body));
        }
        return update(bare, one.group(2), current, object);
      }
      if (method == HttpMethod.PATCH && one.matches() && isJsonPatch(request)) {
        return jsonPatch(request, bare, one.group(2));
      }
      if (method == HttpMethod.DELETE && (one.matches() || all.matches())) {
        MockResponse answer = crud.dispatch(request);
        if (answer.code() < 300) {
          afterDelete.run();
        }
        return answer;
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      return ApiStatus.failure(400, "BadRequest", "the request body is not JSON: " + e.getOriginalMessage(), null);
    }
    return crud.dispatch(request);
  }

  private MockResponse create(RecordedRequest request, String path) throws com.fasterxml.jackson.core.JsonProcessingException {
    String text = body(request);
    JsonNode body = json.readTree(text);
    if (!(body instanceof ObjectNode claim)) {
      return crud.dispatch(replay(request, text));
    }
    String name = claim.path("metadata").path("name").asText(claim.path("metadata").path("generateName").asText(""));
    List<Cause> causes = new ArrayList<>();
    if (claim.path("spec").path("accessModes").isEmpty()) {
      causes.add(new Cause("spec.accessModes", "Required value", "FieldValueRequired", "at least 1 access mode is required"));
    }
    if (quantity(claim.path("spec").path("resources").path("requests").path("storage")) == null) {
      causes.add(new Cause("spec.resources[storage]", "Required value", "FieldValueRequired", null));
    }
    if (!causes.isEmpty()) {
      return invalid(name, causes);
    }
    ObjectNode metadata = claim.with("metadata");
    ArrayNode finalizers = metadata.withArray("finalizers");
    boolean protectedAlready = false;
    for (JsonNode f : finalizers) {
      protectedAlready |= StorageKeys.PVC_PROTECTION.equals(f.asText());
    }
    if (!protectedAlready) {
      finalizers.add(StorageKeys.PVC_PROTECTION);
    }
    ObjectNode spec = claim.with("spec");
    if (!spec.hasNonNull("volumeMode")) {
      spec.put("volumeMode", "Filesystem");
    }
    if (!spec.hasNonNull("storageClassName")) {
      StorageClass defaultClass = StorageController.defaultClass(storageClasses());
      if (defaultClass != null) {
        spec.put("storageClassName", defaultClass.getMetadata().getName());
      }
    }
    claim.set("status", json.createObjectNode().put("phase", "Pending"));
    return crud.dispatch(request(HttpMethod.POST, path, json.writeValueAsString(claim)));
  }

  /** The checks of an update (PUT, or a patch applied here) and the PUT that stores it. */
  private MockResponse update(String path, String name, JsonNode current, ObjectNode updated)
      throws com.fasterxml.jackson.core.JsonProcessingException {
    ObjectNode spec = updated.with("spec");
    JsonNode stored = current.path("spec");
    for (String field : new String[] {"volumeName", "storageClassName", "volumeMode"}) {
      if (!spec.hasNonNull(field) && stored.hasNonNull(field)) {
        spec.set(field, stored.get(field));
      }
    }
    if (current.has("status")) {
      updated.set("status", current.get("status"));
    } else {
      updated.remove("status");
    }
    BigDecimal wanted = quantity(spec.path("resources").path("requests").path("storage"));
    BigDecimal before = quantity(stored.path("resources").path("requests").path("storage"));
    if (wanted == null) {
      return invalid(name, List.of(new Cause("spec.resources[storage]", "Required value", "FieldValueRequired", null)));
    }
    if (before != null && wanted.compareTo(before) != 0) {
      if (!"Bound".equals(current.path("status").path("phase").asText())) {
        return invalid(name, List.of(new Cause("spec", "Forbidden", "FieldValueForbidden", IMMUTABLE_SPEC)));
      }
      if (wanted.compareTo(before) < 0) {
        BigDecimal capacity = quantity(current.path("status").path("capacity").path("storage"));
        if (capacity == null || wanted.compareTo(capacity) <= 0) {
          return invalid(name, List.of(
              new Cause("spec.resources.requests.storage", "Forbidden", "FieldValueForbidden", BELOW_CAPACITY)));
        }
      } else if (!expandable(spec.path("storageClassName").asText(""))) {
        return ApiStatus.failure(403, "Forbidden", "persistentvolumeclaims \"" + name + "\" is forbidden: " + FORBIDDEN_RESIZE,
            Map.of("name", name, "kind", "persistentvolumeclaims"));
      }
    }
    return crud.dispatch(request(HttpMethod.PUT, path, json.writeValueAsString(updated)));
  }

  /** A JSON patch applied here, so that its result is admitted as an update; retried on a conflict. */
  private MockResponse jsonPatch(RecordedRequest request, String path, String name)
      throws com.fasterxml.jackson.core.JsonProcessingException {
    JsonNode patch = json.readTree(body(request));
    if (patch == null || !patch.isArray()) {
      return ApiStatus.failure(400, "BadRequest", "a JSON patch must be an array of operations", null);
    }
    MockResponse answer = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      JsonNode current = current(path);
      if (current == null) {
        return ApiStatus.notFound("persistentvolumeclaims", name);
      }
      JsonNode patched;
      try {
        patched = JsonPatch.apply(patch, current);
      } catch (RuntimeException e) {
        return ApiStatus.failure(422, "Invalid", "the JSON patch does not apply: " + e.getMessage(), null);
      }
      if (!(patched instanceof ObjectNode object)) {
        return ApiStatus.failure(422, "Invalid", "the JSON patch does not leave an object", null);
      }
      boolean precondition = !patched.path("metadata").path("resourceVersion")
          .equals(current.path("metadata").path("resourceVersion"));
      answer = update(path, name, current, object);
      if (answer.code() != 409 || precondition) {
        return answer;
      }
    }
    return answer;
  }

  private boolean expandable(String className) {
    if (className.isEmpty()) {
      return false;
    }
    StorageClass storageClass = raw.get("/apis/storage.k8s.io/v1/storageclasses/" + className, StorageClass.class);
    return storageClass != null && Boolean.TRUE.equals(storageClass.getAllowVolumeExpansion());
  }

  private List<StorageClass> storageClasses() {
    return raw.list("/apis/storage.k8s.io/v1/storageclasses", StorageClassList.class).getItems();
  }

  private JsonNode current(String path) throws com.fasterxml.jackson.core.JsonProcessingException {
    MockResponse answer = crud.dispatch(request(HttpMethod.GET, path, null));
    return answer.code() == 200 && answer.getBody() != null
        ? json.readTree(new String(answer.getBody().getBytes(), StandardCharsets.UTF_8))
        : null;
  }

  private static boolean isJsonPatch(RecordedRequest request) {
    String type = request.getHeader("Content-Type");
    return type != null && type.startsWith(JSON_PATCH);
  }

  /** A quantity's value in bytes, or null when absent or unparseable. */
  static BigDecimal quantity(JsonNode node) {
    if (node == null || node.isMissingNode() || node.isNull()) {
      return null;
    }
    try {
      return Quantity.getAmountInBytes(new Quantity(node.asText()));
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** 422 as the apiserver words a failed validation: {@code PersistentVolumeClaim "x" is invalid: ...}. */
  private static MockResponse invalid(String name, List<Cause> causes) {
    List<String> errors = new ArrayList<>();
    List<Map<String, Object>> details = new ArrayList<>();
    for (Cause cause : causes) {
      String message = cause.type() + (cause.detail() == null ? "" : ": " + cause.detail());
      errors.add(cause.field() + ": " + message);
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("reason", cause.reason());
      entry.put("message", message);
      entry.put("field", cause.field());
      details.add(entry);
    }
    String summary = errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]";
    Map<String, Object> detail = new LinkedHashMap<>();
    detail.put("name", name);
    detail.put("kind", "PersistentVolumeClaim");
    detail.put("causes", details);
    return ApiStatus.failure(422, "Invalid", "PersistentVolumeClaim \"" + name + "\" is invalid: " + summary, detail);
  }

  private static String body(RecordedRequest request) {
    String body = request.getUtf8Body();
    return body == null ? "" : body;
  }

  /** The request again, with the body this class read from it (reading a request's body consumes it). */
  private static RecordedRequest replay(RecordedRequest request, String body) {
    Buffer buffer = new Buffer();
    if (body != null) {
      buffer.writeUtf8(body);
    }
    return new RecordedRequest(request.getHttpVersion(), request.method(), request.getPath(), request.getHeaders(), buffer);
  }

  private static RecordedRequest request(HttpMethod method, String path, String body) {
    Headers.Builder headers = Headers.builder();
    Buffer buffer = new Buffer();
    if (body != null) {
      buffer.writeUtf8(body);
      headers.add("Content-Type", "application/json");
      headers.add("Content-Length", String.valueOf(body.getBytes(StandardCharsets.UTF_8).length));
    }
    return new RecordedRequest("HTTP/1.1", method, path, headers.build(), buffer);
  }
}
