package io.gshare.api.security;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.audit.AuditLog;
import io.gshare.core.error.ProblemCode;
import io.gshare.api.error.ProblemDetailsAdvice;
import io.gshare.core.user.UserRepository;
import io.gshare.workflows.common.Ids;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Establishes the caller. {@code /api/**} takes user tokens, {@code /internal/**} takes operator
 * tokens (the two kinds never pass for each other); {@code /internal/connect/verify} authenticates
 * itself because it answers for the ingress. A missing or bad token is a 401 problem, audited.
 */
@Component
public class AuthenticationFilter extends OncePerRequestFilter {

  public static final String CALLER = AuthenticationFilter.class.getName() + ".caller";
  private static final String OPERATOR_PREFIX = "operator:";

  private final Tokens tokens;
  private final UserRepository users;
  private final JdbcClient jdbc;
  private final AuditLog audit;
  private final ObjectMapper json;

  AuthenticationFilter(Tokens tokens, UserRepository users, JdbcClient jdbc, AuditLog audit, ObjectMapper json) {
    this.tokens = tokens;
    this.users = users;
    this.jdbc = jdbc;
    this.audit = audit;
    this.json = json;
  }

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String path = request.getRequestURI().substring(request.getContextPath().length());
    try {
      if (path.startsWith("/internal/connect/")) {
        // answers ingress-nginx itself: 401/403 are its verdicts, not errors
      } else if (path.startsWith("/internal/")) {
        request.setAttribute(CALLER, operator(bearer(request)));
      } else if (path.startsWith("/api/") && !path.startsWith("/api/v1/openapi")) {
        request.setAttribute(CALLER, user(bearer(request)));
      }
    } catch (InvalidTokenException e) {
      String ip = request.getRemoteAddr();
      audit.denied("anonymous@" + ip, "endpoint", request.getMethod() + " " + path, e.getMessage());
      response.setStatus(401);
      response.setHeader("WWW-Authenticate", "Bearer error=\"invalid_token\", error_description=\""
          + e.getMessage().replace("\"", "'") + "\"");
      response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
      json.writeValue(response.getOutputStream(), ProblemDetailsAdvice.body(ProblemCode.UNAUTHORIZED,
          e.getMessage(), Map.of()));
      return;
    }
    chain.doFilter(request, response);
  }

  /** The user behind a user API token, with role and team as they are now. */
  public Caller.User user(String token) throws InvalidTokenException {
    Tokens.Verified verified = tokens.verify(TokenKind.USER, token);
    UserRepository.TokenHolder holder = users.tokenHolder(verified.tokenId(), verified.subject())
        .orElseThrow(() -> new InvalidTokenException("token unknown"));
    if (holder.revokedAt() != null) {
      throw new InvalidTokenException("token revoked");
    }
    if (holder.disabled()) {
      throw new InvalidTokenException("user disabled");
    }
    return new Caller.User(holder.userId(), holder.role(), holder.teamId(), verified.tokenId());
  }

  private Caller.Operator operator(String token) throws InvalidTokenException {
    Tokens.Verified verified = tokens.verify(TokenKind.INTERNAL, token);
    String subject = verified.subject();
    if (!subject.startsWith(OPERATOR_PREFIX) || !Ids.isValid(subject.substring(OPERATOR_PREFIX.length()))) {
      throw new InvalidTokenException("token subject is not operator:<clusterId>");
    }
    String clusterId = subject.substring(OPERATOR_PREFIX.length());
    // A detached cluster's worker may live on (its cluster was unreachable at detach): its token is dead.
    boolean registered = jdbc.sql("select count(*) from clusters where id = :id and status <> 'detached'")
        .param("id", clusterId).query(Integer.class).single() > 0;
    if (!registered) {
      throw new InvalidTokenException("cluster " + clusterId + " is not registered (or was detached)");
    }
    return new Caller.Operator(clusterId);
  }

  static String bearer(HttpServletRequest request) throws InvalidTokenException {
    String header = request.getHeader("Authorization");
    if (header == null || header.isBlank()) {
      throw new InvalidTokenException("no bearer token");
    }
    if (!header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      throw new InvalidTokenException("the Authorization header must be 'Bearer <token>'");
    }
    return header.substring(7).trim();
  }
}
