package io.gshare.api.ratelimit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Puts a handler (or every handler of a controller) under a {@link RateLimit}; {@link RateLimitInterceptor} counts
 * it and the OpenAPI document declares its 429.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface RateLimited {
  RateLimit value();
}
