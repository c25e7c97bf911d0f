package io.gshare.api.ratelimit;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/** Registers {@link RateLimitInterceptor} for every route; it acts on {@link RateLimited} handlers only. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
class RateLimitConfig implements WebMvcConfigurer {

  private final RateLimiters limiters;
  private final RateLimitProperties properties;

  RateLimitConfig(RateLimiters limiters, RateLimitProperties properties) {
    this.limiters = limiters;
    this.properties = properties;
  }

  @Override
  public void addInterceptors(InterceptorRegistry registry) {
    registry.addInterceptor(new RateLimitInterceptor(limiters, properties));
  }
}
