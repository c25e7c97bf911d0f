package io.gshare.api.security;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.problem.ProblemDocuments;
import io.gshare.core.audit.AuditLog;
import io.gshare.core.error.ProblemCode;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.stereotype.Component;

/**
 * How the filter chains refuse: 401 and 403 as RFC 9457 problems, each an {@code access.denied} audit
 * event (deduplicated per minute by {@link AuditLog}), 401 with the RFC 6750 challenge.
 */
@Component
class SecurityProblems implements AuthenticationEntryPoint, AccessDeniedHandler {

  static final String NO_TOKEN = "no bearer token";

  private final AuditLog audit;
  private final ObjectMapper json;

  SecurityProblems(AuditLog audit, ObjectMapper json) {
    this.audit = audit;
    this.json = json;
  }

  @Override
  public void commence(HttpServletRequest request, HttpServletResponse response, AuthenticationException e)
      throws IOException {
    String reason = reasonOf(e);
    audit.denied("anonymous@" + request.getRemoteAddr(), "endpoint", endpoint(request), reason);
    response.setHeader("WWW-Authenticate",
        "Bearer error=\"invalid_token\", error_description=\"" + reason.replace("\"", "'") + "\"");
    write(response, ProblemCode.UNAUTHORIZED, reason);
  }

  @Override
  public void handle(HttpServletRequest request, HttpServletResponse response, AccessDeniedException e)
      throws IOException {
    var authentication = SecurityContextHolder.getContext().getAuthentication();
    String actor = authentication == null ? "anonymous@" + request.getRemoteAddr() : authentication.getName();
    audit.denied(actor, "endpoint", endpoint(request), "not allowed for this caller");
    write(response, ProblemCode.FORBIDDEN, "this action is not allowed for this caller");
  }

  /** What a 401 says: the token's defect as the decoder or converter named it, or that none came. */
  static String reasonOf(AuthenticationException e) {
    if (e instanceof OAuth2AuthenticationException oauth && oauth.getError().getDescription() != null) {
      return oauth.getError().getDescription();
    }
    return e instanceof OAuth2AuthenticationException && e.getMessage() != null ? e.getMessage() : NO_TOKEN;
  }

  static String endpoint(HttpServletRequest request) {
    return request.getMethod() + " " + request.getRequestURI().substring(request.getContextPath().length());
  }

  private void write(HttpServletResponse response, ProblemCode code, String detail) throws IOException {
    response.setStatus(code.status());
    response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
    json.writeValue(response.getOutputStream(), ProblemDocuments.of(code, detail, Map.of()));
  }
}
