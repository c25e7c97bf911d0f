package io.gshare.api.error;

import io.gshare.api.ratelimit.RateLimit;
import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.OpenPaths;
import io.gshare.api.security.SuperAdminOnly;
import io.gshare.core.error.ProblemCode;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.annotation.Annotation;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.springframework.core.MethodParameter;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.method.HandlerMethod;

/**
 * Which problems a handler can answer: its {@link ProblemResponses}, plus what its shape implies, so a new endpoint
 * is documented without anyone listing the generic ones.
 * <ul>
 *   <li>401 {@code unauthorized}: its path needs a token (not {@link OpenPaths#isOpen})</li>
 *   <li>403 {@code forbidden}: {@link AdminOnly} or {@link SuperAdminOnly} on the method or its class</li>
 *   <li>429 {@code rate_limited}: {@link io.gshare.api.ratelimit.RateLimited} on the method or its class</li>
 *   <li>404 {@code not_found}: its path has variables</li>
 *   <li>400 {@code bad_request} and 422 {@code validation_failed}: it takes a body or query parameters</li>
 *   <li>413 {@code payload_too_large} and 415 {@code unsupported_media_type}: it takes a body</li>
 *   <li>406 {@code not_acceptable}: it answers a body (content negotiation against Accept)</li>
 * </ul>
 * A handler that writes its own answer (it takes the {@link HttpServletResponse}, or answers a
 * {@code ResponseEntity<Void>}: the browser sign-in's redirects and pages, ingress auth verdicts) gets only the 401
 * and 403 rules and its listed codes; it declares its other answers itself with {@code @ApiResponse}.
 */
final class ProblemRules {

  private ProblemRules() {}

  /** Every problem {@code handler} can answer, in {@link ProblemCode} order. */
  static Set<ProblemCode> of(HandlerMethod handler) {
    Set<ProblemCode> codes = EnumSet.noneOf(ProblemCode.class);
    listed(handler, codes);
    if (needsToken(handler)) {
      codes.add(ProblemCode.UNAUTHORIZED);
    }
    if (annotated(handler, AdminOnly.class) || annotated(handler, SuperAdminOnly.class)) {
      codes.add(ProblemCode.FORBIDDEN);
    }
    if (RateLimit.of(handler) != null) {
      codes.add(ProblemCode.RATE_LIMITED);
    }
    if (writesItsOwnAnswer(handler)) {
      return codes;
    }
    boolean body = hasParameter(handler, RequestBody.class);
    if (hasParameter(handler, PathVariable.class)) {
      codes.add(ProblemCode.NOT_FOUND);
    }
    if (body || hasParameter(handler, RequestParam.class)) {
      codes.add(ProblemCode.BAD_REQUEST);
      codes.add(ProblemCode.VALIDATION_FAILED);
    }
    if (body) {
      codes.add(ProblemCode.PAYLOAD_TOO_LARGE);
      codes.add(ProblemCode.UNSUPPORTED_MEDIA_TYPE);
    }
    if (answersBody(handler)) {
      codes.add(ProblemCode.NOT_ACCEPTABLE);
    }
    return codes;
  }

  /** Whether any of the handler's paths is behind a token chain of {@code WebSecurityConfig}. */
  static boolean needsToken(HandlerMethod handler) {
    return !paths(handler).stream().allMatch(OpenPaths::isOpen);
  }

  /** The route patterns the handler serves: its class's mapping prefixes combined with its own. */
  static List<String> paths(HandlerMethod handler) {
    RequestMapping type = AnnotatedElementUtils.findMergedAnnotation(handler.getBeanType(), RequestMapping.class);
    RequestMapping method = AnnotatedElementUtils.findMergedAnnotation(handler.getMethod(), RequestMapping.class);
    String[] prefixes = type == null || type.path().length == 0 ? new String[] {""} : type.path();
    String[] suffixes = method == null || method.path().length == 0 ? new String[] {""} : method.path();
    List<String> paths = new ArrayList<>();
    for (String prefix : prefixes) {
      for (String suffix : suffixes) {
        paths.add(prefix + suffix);
      }
    }
    return paths;
  }

  private static void listed(HandlerMethod handler, Set<ProblemCode> codes) {
    ProblemResponses onClass = AnnotatedElementUtils.findMergedAnnotation(handler.getBeanType(), ProblemResponses.class);
    ProblemResponses onMethod = AnnotatedElementUtils.findMergedAnnotation(handler.getMethod(), ProblemResponses.class);
    for (ProblemResponses listed : new ProblemResponses[] {onClass, onMethod}) {
      if (listed != null) {
        codes.addAll(Arrays.asList(listed.value()));
      }
    }
  }

  private static boolean annotated(HandlerMethod handler, Class<? extends Annotation> annotation) {
    return AnnotatedElementUtils.hasAnnotation(handler.getMethod(), annotation)
        || AnnotatedElementUtils.hasAnnotation(handler.getBeanType(), annotation);
  }

  private static boolean hasParameter(HandlerMethod handler, Class<? extends Annotation> annotation) {
    return Arrays.stream(handler.getMethodParameters()).anyMatch(p -> p.hasParameterAnnotation(annotation));
  }

  private static boolean writesItsOwnAnswer(HandlerMethod handler) {
    return Arrays.stream(handler.getMethodParameters())
        .map(MethodParameter::getParameterType).anyMatch(HttpServletResponse.class::isAssignableFrom)
        || isResponseEntityOf(handler.getMethod().getGenericReturnType(), Void.class);
  }

  private static boolean answersBody(HandlerMethod handler) {
    Class<?> returned = handler.getMethod().getReturnType();
    return returned != void.class && returned != Void.class
        && !isResponseEntityOf(handler.getMethod().getGenericReturnType(), Void.class);
  }

  private static boolean isResponseEntityOf(Type type, Class<?> body) {
    return type instanceof ParameterizedType parameterized && parameterized.getRawType() == ResponseEntity.class
        && parameterized.getActualTypeArguments()[0] == body;
  }
}
