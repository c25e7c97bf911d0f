package io.gshare.api.problem;

import io.gshare.core.error.ProblemCode;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;

/**
 * The RFC 9457 document for a {@link ProblemCode}, in one shape for every writer: the MVC advice, the container's
 * error page and the filters that answer before MVC (the security chains' refusals, the request size limit). A
 * package of its own beneath {@code error} and {@code security}, which both write problems.
 */
public final class ProblemDocuments {

  private ProblemDocuments() {}

  /** The problem document for {@code code}: its type, title and status, {@code detail}, and {@code code} first. */
  public static ProblemDetail of(ProblemCode code, String detail, Map<String, Object> properties) {
    ProblemDetail body = ProblemDetail.forStatusAndDetail(HttpStatusCode.valueOf(code.status()), detail);
    body.setType(code.type());
    body.setTitle(code.title());
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put("code", code.code());
    extra.putAll(properties);
    body.setProperties(extra);
    return body;
  }
}
