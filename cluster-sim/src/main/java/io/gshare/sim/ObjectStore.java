package io.gshare.sim;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.charset.StandardCharsets;

/**
 * Reads and writes the stand-in's objects in-process, through the same CRUD dispatcher that serves
 * HTTP, so simulator-made changes raise the same watch events as a client's would, without an HTTP
 * round trip (which could deadlock the server's event loop when made from inside a request).
 */
final class ObjectStore {

  private final Dispatcher crud;
  private final KubernetesSerialization serialization;

  ObjectStore(Dispatcher crud, KubernetesSerialization serialization) {
    this.crud = crud;
    this.serialization = serialization;
  }

  KubernetesSerialization serialization() {
    return serialization;
  }

  /** The object at {@code path}, or null when absent. */
  <T> T get(String path, Class<T> type) {
    MockResponse response = send(HttpMethod.GET, path, null, null);
    return response.code() == 200 ? serialization.unmarshal(body(response), type) : null;
  }

  <L extends KubernetesResourceList<?>> L list(String path, Class<L> type) {
    MockResponse response = send(HttpMethod.GET, path, null, null);
    if (response.code() != 200) {
      throw new IllegalStateException("listing " + path + " answered " + response.code() + ": " + body(response));
    }
    return serialization.unmarshal(body(response), type);
  }

  /** Creates {@code object} at the collection {@code path}; an existing object is left alone. */
  boolean create(String path, HasMetadata object) {
    int code = send(HttpMethod.POST, path, serialization.asJson(object), "application/json").code();
    if (code != 201 && code != 200 && code != 409) {
      throw new IllegalStateException("creating " + object.getMetadata().getName() + " at " + path + " answered " + code);
    }
    return code != 409;
  }

  int replace(String path, HasMetadata object) {
    return send(HttpMethod.PUT, path, serialization.asJson(object), "application/json").code();
  }

  int mergePatch(String path, String patch) {
    return send(HttpMethod.PATCH, path, patch, "application/merge-patch+json").code();
  }

  int delete(String path) {
    return send(HttpMethod.DELETE, path, null, null).code();
  }

  private MockResponse send(HttpMethod method, String path, String body, String contentType) {
    Headers.Builder headers = Headers.builder();
    Buffer buffer = new Buffer();
    if (body != null) {
      buffer.writeUtf8(body);
      headers.add("Content-Type", contentType);
      headers.add("Content-Length", String.valueOf(body.getBytes(StandardCharsets.UTF_8).length));
    }
    return crud.dispatch(new RecordedRequest("HTTP/1.1", method, path, headers.build(), buffer));
  }

  private static String body(MockResponse response) {
    return response.getBody() == null ? "" : new String(response.getBody().getBytes(), StandardCharsets.UTF_8);
  }
}
