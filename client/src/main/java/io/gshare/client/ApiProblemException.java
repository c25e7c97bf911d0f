package io.gshare.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * An error answer of the API: its RFC 9457 problem document, read as the API defines it (status, stable code, title,
 * detail, and a validation failure's field errors). The CLI prints it on stderr and exits 1.
 */
public final class ApiProblemException extends RuntimeException {

  private final ApiProblem problem;

  public ApiProblemException(ApiProblem problem) {
    super(problem.detail() == null ? problem.title() : problem.detail());
    this.problem = problem;
  }

  public ApiProblem problem() {
    return problem;
  }

  /** The problem+json document; {@code errors} only for {@code validation_failed}. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ApiProblem(String type, String title, int status, String detail, String code,
      List<FieldError> errors, String operationId) {

    public ApiProblem {
      errors = errors == null ? List.of() : List.copyOf(errors);
    }

    /** The lines an operator reads: what went wrong and why, then each field's complaint. */
    public String describe() {
      StringBuilder out = new StringBuilder("error: ")
          .append(detail == null || detail.isBlank() ? title : detail)
          .append(" (").append(status).append(code == null ? "" : " " + code).append(')');
      errors.forEach(e -> out.append("\n  ").append(e.field()).append(": ").append(e.message()));
      if (operationId != null) {
        out.append("\n  operation: ").append(operationId);
      }
      return out.toString();
    }
  }

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record FieldError(String field, String message) {}
}
