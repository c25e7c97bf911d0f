package io.gshare.api.error;

import io.gshare.api.problem.ProblemDocuments;
import io.gshare.core.error.ProblemCode;
import io.swagger.v3.oas.annotations.Hidden;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.servlet.error.ErrorController;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The error dispatch for what never reached a controller: a request the servlet container or Spring Security's
 * firewall refused (an encoded {@code %25} or {@code %2F} in a path, a malformed header), or a filter's
 * {@code sendError}. It answers the same problem+json as {@link ProblemDetailsAdvice}, in place of Spring Boot's
 * default error body. Only the ERROR dispatch reaches it: a request for {@code /error} itself is refused with 401.
 */
@Hidden
@RestController
class ContainerErrorController implements ErrorController {

  private static final Logger log = LoggerFactory.getLogger(ContainerErrorController.class);

  @RequestMapping("${server.error.path:${error.path:/error}}")
  ResponseEntity<Object> error(HttpServletRequest request) {
    int status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE) instanceof Integer code ? code : 500;
    Throwable failure = (Throwable) request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
    if (ProblemDetailsAdvice.isDatabaseUnavailable(failure)) {
      // The token's holder is read from PostgreSQL in the security filters, before any controller.
      return ProblemDetailsAdvice.databaseUnavailable(failure);
    }
    ProblemCode problem = ProblemDetailsAdvice.forStatus(status);
    String detail;
    if (status >= 500) {
      log.error("request to {} failed before reaching a handler", request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI),
          failure);
      detail = "an internal error occurred";
    } else {
      detail = status == 400 ? "the request is malformed (its path, query or headers)" : problem.title();
    }
    // The container's status stands (e.g. 400 for a rejected path); the code names the family.
    return ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON)
        .body(ProblemDocuments.of(problem, detail, Map.of()));
  }
}
