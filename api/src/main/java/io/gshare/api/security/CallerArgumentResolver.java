package io.gshare.api.security;

import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import java.util.List;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.MethodParameter;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/** Lets handlers take {@link Caller.User} or {@link Caller.Operator} as a parameter. */
@Configuration(proxyBeanMethods = false)
class CallerArgumentResolver implements HandlerMethodArgumentResolver, WebMvcConfigurer {

  @Override
  public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
    resolvers.add(this);
  }

  @Override
  public boolean supportsParameter(MethodParameter parameter) {
    return Caller.class.isAssignableFrom(parameter.getParameterType());
  }

  @Override
  public Object resolveArgument(MethodParameter parameter, ModelAndViewContainer mav, NativeWebRequest request,
      WebDataBinderFactory binders) {
    Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
    Object caller = authentication == null ? null : authentication.getPrincipal();
    if (!parameter.getParameterType().isInstance(caller)) {
      // A route outside the token chains asked for a caller: refuse rather than run unauthenticated.
      throw new GshareException(ProblemCode.UNAUTHORIZED, "this endpoint needs a "
          + (parameter.getParameterType() == Caller.Operator.class ? "cluster-worker" : "user") + " token");
    }
    return caller;
  }
}
