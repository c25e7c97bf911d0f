package io.gshare.core.error;

import java.util.Map;

/**
 * A failure the caller can act on, raised by services without knowledge of the web layer;
 * {@link ProblemDetailsAdvice} turns it into RFC 9457 problem+json.
 */
public class GshareException extends RuntimeException {

  private final ProblemCode code;
  private final transient Map<String, Object> properties;

  public GshareException(ProblemCode code, String detail) {
    this(code, detail, Map.of());
  }

  public GshareException(ProblemCode code, String detail, Map<String, Object> properties) {
    super(detail);
    this.code = code;
    this.properties = Map.copyOf(properties);
  }

  public ProblemCode code() {
    return code;
  }

  /** Extra members of the problem document, e.g. {@code retry_after}. */
  public Map<String, Object> properties() {
    return properties;
  }

  public static GshareException notFound(String kind, String id) {
    return new GshareException(ProblemCode.NOT_FOUND, "no " + kind + " with id '" + id + "'");
  }
}
