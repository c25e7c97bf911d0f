package io.gshare.api.ratelimit;

import java.util.Locale;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.method.HandlerMethod;

/**
 * The request rate limits, each counted per caller of its kind. A request over its limit is answered 429
 * {@code rate_limited} with {@code Retry-After} before its body is read, and changes nothing.
 */
public enum RateLimit {
  /**
   * A user's session and volume commands (create, pause, resume, end, restore, expand): each starts or signals a
   * workflow, so one user's script cannot crowd the workflow engine for everybody. Counted per user.
   */
  USER_COMMANDS("gshare.rate-limits.user-commands-per-second"),
  /** A cluster-worker's reports on {@code /internal/v1}: one flooding cluster does not slow the others. Per cluster. */
  CLUSTER_REPORTS("gshare.rate-limits.cluster-reports-per-second");

  private final String property;

  RateLimit(String property) {
    this.property = property;
  }

  /** The configuration key of its permits per second. */
  public String property() {
    return property;
  }

  /** The limit of a handler, from the method or its controller's {@link RateLimited}; null when it has none. */
  public static RateLimit of(HandlerMethod handler) {
    RateLimited limited = AnnotatedElementUtils.findMergedAnnotation(handler.getMethod(), RateLimited.class);
    if (limited == null) {
      limited = AnnotatedElementUtils.findMergedAnnotation(handler.getBeanType(), RateLimited.class);
    }
    return limited == null ? null : limited.value();
  }

  /** The metric tag and log name, e.g. {@code user_commands}. */
  public String tag() {
    return name().toLowerCase(Locale.ROOT);
  }
}
