package io.gshare.api.error;

import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.gshare.api.problem.ProblemDocuments;
import io.gshare.core.audit.AuditLog;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowServiceException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.validation.ConstraintViolationException;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.web.ErrorResponse;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * The one place errors become RFC 9457 {@code application/problem+json}. Spring MVC's own
 * exceptions (unknown route, bad method, unreadable body) get the same shape through the base class.
 * 5xx are logged with their stack trace and answered without internals.
 */
@RestControllerAdvice
public class ProblemDetailsAdvice extends ResponseEntityExceptionHandler {

  private static final Logger log = LoggerFactory.getLogger(ProblemDetailsAdvice.class);

  /** PostgreSQL's unique_violation; its other integrity and data states (23514, 23502, 22001, ...) are 422. */
  private static final String UNIQUE_VIOLATION = "23505";
  /** SQLState class 08, connection exception: the connection could not be made or was lost. */
  private static final String CONNECTION_EXCEPTION_CLASS = "08";
  /** What 503 database_unavailable says. */
  private static final String DATABASE_UNAVAILABLE = "the database (PostgreSQL) did not answer; retry shortly";

  private final AuditLog audit;

  ProblemDetailsAdvice(AuditLog audit) {
    this.audit = audit;
  }

  @ExceptionHandler(GshareException.class)
  ResponseEntity<Object> gshare(GshareException e) {
    if (e.code().status() >= 500) {
      log.error("{}: {}", e.code().code(), e.getMessage(), e);
    } else {
      log.debug("{}: {}", e.code().code(), e.getMessage());
    }
    return problem(e.code(), e.getMessage(), e.properties());
  }

  /** Method security's own refusal; the early check ({@code EarlyAuthorization}) normally answers first. */
  @ExceptionHandler(AccessDeniedException.class)
  ResponseEntity<Object> accessDenied(AccessDeniedException e, HttpServletRequest request) {
    Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
    audit.denied(authentication == null ? "anonymous@" + request.getRemoteAddr() : authentication.getName(), "endpoint",
        request.getMethod() + " " + request.getRequestURI(), "not allowed for this caller");
    return problem(ProblemCode.FORBIDDEN, "this action is not allowed for this caller", Map.of());
  }

  @ExceptionHandler(ConstraintViolationException.class)
  ResponseEntity<Object> constraintViolation(ConstraintViolationException e) {
    List<Map<String, String>> errors = e.getConstraintViolations().stream()
        .map(v -> Map.of("field", String.valueOf(v.getPropertyPath()), "message", v.getMessage()))
        .toList();
    return problem(ProblemCode.VALIDATION_FAILED, "the request has invalid values", Map.of("errors", errors));
  }

  @ExceptionHandler(WorkflowExecutionAlreadyStarted.class)
  ResponseEntity<Object> alreadyStarted(WorkflowExecutionAlreadyStarted e) {
    return problem(ProblemCode.OPERATION_IN_PROGRESS,
        "operation " + e.getExecution().getWorkflowId() + " is already running",
        Map.of("operation_id", e.getExecution().getWorkflowId()));
  }

  @ExceptionHandler(WorkflowServiceException.class)
  ResponseEntity<Object> workflowService(WorkflowServiceException e) {
    if (e.getCause() instanceof StatusRuntimeException grpc && isUnavailable(grpc.getStatus())) {
      log.warn("Temporal unavailable: {}", grpc.getStatus());
      return problem(ProblemCode.TEMPORAL_UNAVAILABLE,
          "the workflow engine (Temporal) did not answer; retry shortly", Map.of());
    }
    log.error("workflow service call failed", e);
    return problem(ProblemCode.INTERNAL, "an internal error occurred", Map.of());
  }

  @ExceptionHandler(StatusRuntimeException.class)
  ResponseEntity<Object> grpc(StatusRuntimeException e) {
    if (isUnavailable(e.getStatus())) {
      log.warn("Temporal unavailable: {}", e.getStatus());
      return problem(ProblemCode.TEMPORAL_UNAVAILABLE,
          "the workflow engine (Temporal) did not answer; retry shortly", Map.of());
    }
    log.error("gRPC call failed", e);
    return problem(ProblemCode.INTERNAL, "an internal error occurred", Map.of());
  }

  @ExceptionHandler(Exception.class)
  ResponseEntity<Object> unexpected(Exception e) {
    if (isDatabaseUnavailable(e)) {
      // Wrapped where the handlers above cannot see it, e.g. a rollback that failed on the connection that dropped.
      return databaseUnavailable(e);
    }
    log.error("unhandled error", e);
    return problem(ProblemCode.INTERNAL, "an internal error occurred", Map.of());
  }

  @Override
  protected ResponseEntity<Object> handleMethodArgumentNotValid(
      MethodArgumentNotValidException e, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
    List<Map<String, String>> errors = e.getBindingResult().getFieldErrors().stream()
        .map(f -> Map.of("field", f.getField(), "message", String.valueOf(f.getDefaultMessage())))
        .toList();
    return problem(ProblemCode.VALIDATION_FAILED, "the request body has invalid fields", Map.of("errors", errors));
  }

  @Override
  protected ResponseEntity<Object> handleHttpMessageNotReadable(
      HttpMessageNotReadableException e, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
    Throwable cause = e.getMostSpecificCause();
    String detail;
    if (cause instanceof UnrecognizedPropertyException unknown) {
      detail = "unknown field '" + unknown.getPropertyName() + "'";
    } else if (cause instanceof InvalidFormatException invalid) {
      detail = "field '" + invalid.getPathReference() + "' has an invalid value";
    } else {
      detail = "the request body is not valid JSON for this endpoint";
    }
    return problem(ProblemCode.BAD_REQUEST, detail, Map.of());
  }

  /** Spring MVC's own errors (404 route, 405, 415, ...) keep their status and gain our shape. */
  @Override
  protected ResponseEntity<Object> handleExceptionInternal(
      Exception e, Object body, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
    ProblemCode code = forStatus(status.value());
    String detail = e instanceof ErrorResponse er && er.getBody().getDetail() != null
        ? er.getBody().getDetail() : code.title();
    if (status.is5xxServerError()) {
      log.error("request failed", e);
      detail = "an internal error occurred";
    }
    ResponseEntity<Object> problem = problem(code, detail, Map.of());
    return ResponseEntity.status(status).headers(headers).contentType(MediaType.APPLICATION_PROBLEM_JSON)
        .body(problem.getBody());
  }

  /**
   * PostgreSQL down, restarting or failing over: no connection, or the one in use dropped. Its transaction rolled
   * back (a commit cut off midway is the one case that may have landed), so the client sends it again, with its
   * idempotency key where it has one.
   */
  @ExceptionHandler({DataAccessResourceFailureException.class, TransientDataAccessResourceException.class,
      CannotCreateTransactionException.class})
  static ResponseEntity<Object> databaseUnavailable(Throwable e) {
    Throwable cause = NestedExceptionUtils.getMostSpecificCause(e);
    log.warn("database unavailable: {}", cause.getMessage() == null ? cause.getClass().getName() : cause.getMessage());
    return problem(ProblemCode.DATABASE_UNAVAILABLE, DATABASE_UNAVAILABLE, Map.of());
  }

  /**
   * Whether {@code e}, or what caused it, is PostgreSQL being unreachable (the security filters meet it first). A
   * transaction whose connection dropped mid-request fails twice: its statement, then its rollback on the dead
   * connection; Spring then throws the rollback's failure and keeps the statement's as its application exception.
   */
  static boolean isDatabaseUnavailable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof DataAccessResourceFailureException || t instanceof TransientDataAccessResourceException
          || t instanceof CannotCreateTransactionException
          || t instanceof SQLException sql && sql.getSQLState() != null
              && sql.getSQLState().startsWith(CONNECTION_EXCEPTION_CLASS)) {
        return true;
      }
      if (t instanceof TransactionSystemException failed && failed.getApplicationException() != null
          && isDatabaseUnavailable(failed.getApplicationException())) {
        return true;
      }
    }
    return false;
  }

  /**
   * A store constraint the request's validation did not catch (a CHECK, NOT NULL or length the database keeps):
   * the request is refused and nothing is written, as its transaction rolls back. A unique key is a conflict.
   */
  @ExceptionHandler(DataIntegrityViolationException.class)
  ResponseEntity<Object> dataIntegrity(DataIntegrityViolationException e) {
    String state = e.getMostSpecificCause() instanceof SQLException sql ? sql.getSQLState() : null;
    log.warn("store refused a request's values (SQLState {}): {}", state, e.getMostSpecificCause().getMessage());
    if (UNIQUE_VIOLATION.equals(state)) {
      return problem(ProblemCode.CONFLICT, "a value of this request is already taken", Map.of());
    }
    return problem(ProblemCode.VALIDATION_FAILED, "a value of this request is out of its allowed range", Map.of());
  }

  /** The code of a status Spring MVC or the servlet container chose by itself. */
  public static ProblemCode forStatus(int status) {
    return switch (status) {
      case 400 -> ProblemCode.BAD_REQUEST;
      case 401 -> ProblemCode.UNAUTHORIZED;
      case 403 -> ProblemCode.FORBIDDEN;
      case 404 -> ProblemCode.NOT_FOUND;
      case 405 -> ProblemCode.METHOD_NOT_ALLOWED;
      case 406 -> ProblemCode.NOT_ACCEPTABLE;
      case 413 -> ProblemCode.PAYLOAD_TOO_LARGE;
      case 415 -> ProblemCode.UNSUPPORTED_MEDIA_TYPE;
      default -> status >= 500 ? ProblemCode.INTERNAL : ProblemCode.BAD_REQUEST;
    };
  }

  static ResponseEntity<Object> problem(ProblemCode code, String detail, Map<String, Object> properties) {
    return ResponseEntity.status(code.status()).contentType(MediaType.APPLICATION_PROBLEM_JSON)
        .body(ProblemDocuments.of(code, detail, properties));
  }


  private static boolean isUnavailable(Status status) {
    return status.getCode() == Status.Code.UNAVAILABLE || status.getCode() == Status.Code.DEADLINE_EXCEEDED;
  }
}
