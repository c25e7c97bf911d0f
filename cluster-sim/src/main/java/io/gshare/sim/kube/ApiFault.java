package io.gshare.sim.kube;

import java.util.Objects;

/**
 * One injected apiserver failure: it answers the first request it matches, then is spent.
 *
 * @param method the HTTP method it matches ({@code GET}, {@code POST}, {@code PATCH}, ...), {@link #WATCH} for a watch
 *     ({@code GET ...?watch=true}, which {@code GET} does not match), or {@link #ANY_METHOD} for any request
 * @param pathPrefix the request paths it matches (the query left out), e.g.
 *     {@code /api/v1/namespaces/gshare-sessions/pods}
 */
public record ApiFault(String method, String pathPrefix, ApiFaultKind kind) {

  /** The method a watch request counts as. */
  public static final String WATCH = "WATCH";
  public static final String ANY_METHOD = "*";

  public ApiFault {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(pathPrefix, "pathPrefix");
    Objects.requireNonNull(kind, "kind");
  }

  /** @param requestMethod {@link #WATCH} for a watch, else the HTTP method */
  boolean matches(String requestMethod, String path) {
    return (ANY_METHOD.equals(method) || method.equalsIgnoreCase(requestMethod)) && path.startsWith(pathPrefix);
  }
}
