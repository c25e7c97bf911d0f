package io.gshare.api.ratelimit;

import io.gshare.api.security.Caller;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Map;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Counts each {@link RateLimited} request against its caller's limit after the token is verified and before the
 * body is read: a refused request costs no parsing, no database and no workflow.
 */
final class RateLimitInterceptor implements HandlerInterceptor {

  /** Seconds until the next permits; the limiters refill each second. */
  static final String RETRY_AFTER_SECONDS = "1";

  private final RateLimiters limiters;
  private final RateLimitProperties properties;

  RateLimitInterceptor(RateLimiters limiters, RateLimitProperties properties) {
    this.limiters = limiters;
    this.properties = properties;
  }

  @Override
  public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
    if (!(handler instanceof HandlerMethod method)) {
      return true;
    }
    RateLimit limit = RateLimit.of(method);
    if (limit == null) {
      return true;
    }
    String caller = callerKey(limit);
    if (caller == null || limiters.tryAcquire(limit, caller)) {
      // No caller of the limit's kind: the security chain or the handler refuses it.
      return true;
    }
    response.setHeader("Retry-After", RETRY_AFTER_SECONDS);
    throw new GshareException(ProblemCode.RATE_LIMITED, switch (limit) {
      case USER_COMMANDS -> "more than " + properties.userCommandsPerSecond()
          + " session and volume commands a second from this user; retry in a second";
      case CLUSTER_REPORTS -> "more than " + properties.clusterReportsPerSecond()
          + " reports a second from this cluster; send again in a second";
    }, Map.of("retry_after_seconds", Integer.parseInt(RETRY_AFTER_SECONDS)));
  }

  private static String callerKey(RateLimit limit) {
    Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
    Object principal = authentication == null ? null : authentication.getPrincipal();
    return switch (limit) {
      case USER_COMMANDS -> principal instanceof Caller.User user ? user.userId() : null;
      case CLUSTER_REPORTS -> principal instanceof Caller.Operator operator ? operator.clusterId() : null;
    };
  }
}
