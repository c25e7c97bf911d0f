package io.gshare.sim;

import io.fabric8.mockwebserver.http.MockResponse;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Failures the simulated apiserver answers instead of (or after) serving a request, in the order they were injected:
 * the fault suite's stand-in for an overloaded or flaky control plane. Each fault answers one matching request and is
 * then spent. The answers are a real apiserver's: {@code 500 InternalError}, {@code 503 ServiceUnavailable},
 * {@code 429 TooManyRequests} with {@code Retry-After}, {@code 410 Expired} (a resource version compacted away), and
 * {@code 504 Timeout} ("may still be processing the request"), which the simulator answers after applying the write,
 * as an apiserver whose request timed out after its storage write did.
 */
public final class ApiFaults {

  /** What a fault answers. */
  public enum Kind {
    INTERNAL_ERROR(500, "InternalError", "Internal error occurred: etcdserver: request timed out"),
    UNAVAILABLE(503, "ServiceUnavailable", "the server is currently unable to handle the request"),
    TOO_MANY_REQUESTS(429, "TooManyRequests", "the server has received too many requests and has asked us to try"
        + " again later"),
    /** A list or watch from a resource version the apiserver no longer keeps (after an etcd compaction). */
    GONE(410, "Expired", "too old resource version: 1 (2)"),
    TIMEOUT_AFTER_WRITE(504, "Timeout", "the server was unable to return a response in the time allotted, but may"
        + " still be processing the request"),
    /** A watch whose stream ends at once with no event, as an apiserver or a proxy closes a watch it drops. */
    DROPPED(200, "", "");

    final int code;
    final String reason;
    final String message;

    Kind(int code, String reason, String message) {
      this.code = code;
      this.reason = reason;
      this.message = message;
    }
  }

  /**
   * One injected failure.
   *
   * @param method the HTTP method it matches ({@code GET}, {@code POST}, {@code PATCH}, ...), {@link #WATCH} for a
   *     watch ({@code GET ...?watch=true}, which {@code GET} does not match), or {@code *} for any request
   * @param pathPrefix the request paths it matches, e.g. {@code /api/v1/namespaces/gshare-sessions/pods}
   */
  public record Fault(String method, String pathPrefix, Kind kind) {

    /** The method a watch request counts as. */
    public static final String WATCH = "WATCH";

    boolean matches(String requestMethod, String path) {
      return ("*".equals(method) || method.equalsIgnoreCase(requestMethod)) && path.startsWith(pathPrefix);
    }
  }

  private final List<Fault> pending = new ArrayList<>();
  private final List<Fault> answered = new ArrayList<>();

  /** Queues faults; each answers the next request it matches. */
  public synchronized void inject(List<Fault> faults) {
    pending.addAll(faults);
  }

  /** The faults not answered yet. */
  public synchronized List<Fault> pending() {
    return List.copyOf(pending);
  }

  /** The faults answered so far, in order. */
  public synchronized List<Fault> answered() {
    return List.copyOf(answered);
  }

  /** Drops what is still pending. */
  public synchronized void clear() {
    pending.clear();
  }

  /** The first pending fault matching the request, now spent; null when none matches. */
  synchronized Fault take(String method, String path) {
    for (Iterator<Fault> it = pending.iterator(); it.hasNext(); ) {
      Fault fault = it.next();
      if (fault.matches(method, path)) {
        it.remove();
        answered.add(fault);
        return fault;
      }
    }
    return null;
  }

  static MockResponse answer(Kind kind) {
    if (kind == Kind.DROPPED) {
      return new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json").setBody("");
    }
    MockResponse response = ApiStatus.failure(kind.code, kind.reason, kind.message,
        kind == Kind.TOO_MANY_REQUESTS ? Map.of("retryAfterSeconds", 1) : null);
    return kind == Kind.TOO_MANY_REQUESTS ? response.setHeader("Retry-After", "1") : response;
  }
}
