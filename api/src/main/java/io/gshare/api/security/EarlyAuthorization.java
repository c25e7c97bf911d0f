package io.gshare.api.security;

import io.gshare.core.audit.AuditLog;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Method;
import java.util.Map;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.security.authorization.AuthorizationResult;
import org.springframework.security.authorization.method.PreAuthorizeAuthorizationManager;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.util.SimpleMethodInvocation;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.HandlerMapping;

/**
 * Evaluates a handler's {@code @PreAuthorize} (through {@link AdminOnly}, {@link SuperAdminOnly}) before
 * Spring MVC reads and validates the body, with the same manager and role hierarchy as method security:
 * a non-admin posting an invalid body to an admin endpoint learns that it may not, not what is invalid.
 * Only role rules belong there; rules on arguments would see none (object checks live where the object
 * is loaded).
 */
final class EarlyAuthorization implements HandlerInterceptor {

  private final PreAuthorizeAuthorizationManager manager;
  private final AuditLog audit;

  EarlyAuthorization(PreAuthorizeAuthorizationManager manager, AuditLog audit) {
    this.manager = manager;
    this.audit = audit;
  }

  @Override
  public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
    if (!(handler instanceof HandlerMethod handlerMethod)) {
      return true;
    }
    Method method = handlerMethod.getMethod();
    var invocation = new SimpleMethodInvocation(handlerMethod.getBean(), method);
    AuthorizationResult result = manager.authorize(() -> SecurityContextHolder.getContext().getAuthentication(),
        invocation);
    if (result == null || result.isGranted()) {
      return true;
    }
    String role = requiredRole(handlerMethod);
    var authentication = SecurityContextHolder.getContext().getAuthentication();
    AuditedObject object = AuditedObject.of(request);
    audit.denied(authentication == null ? "anonymous" : authentication.getName(), object.kind(), object.id(),
        "requires the " + role + " role");
    throw new GshareException(ProblemCode.FORBIDDEN, "this action requires the " + role + " role");
  }

  /**
   * What a refused request was about, for the audit log: the resource its route names first after
   * {@code /api/v1/}, singular ({@code /api/v1/users/{id}} → {@code user}, {@code node-pools} →
   * {@code node_pool}), and the route's first path variable, if any.
   */
  record AuditedObject(String kind, String id) {

    static AuditedObject of(HttpServletRequest request) {
      Object pattern = request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
      String route = pattern == null ? request.getRequestURI() : pattern.toString();
      String[] segments = route.replaceFirst("^/api/v\\d+/", "").split("/");
      String kind = segments[0].replace('-', '_');
      kind = kind.endsWith("ies") ? kind.substring(0, kind.length() - 3) + "y"
          : kind.endsWith("s") ? kind.substring(0, kind.length() - 1) : kind;
      Object variables = request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
      String id = variables instanceof Map<?, ?> map && !map.isEmpty() ? String.valueOf(map.values().iterator().next()) : null;
      return new AuditedObject(kind, id);
    }
  }

  private static String requiredRole(HandlerMethod handler) {
    boolean superAdmin = AnnotatedElementUtils.hasAnnotation(handler.getMethod(), SuperAdminOnly.class)
        || (!AnnotatedElementUtils.hasAnnotation(handler.getMethod(), AdminOnly.class)
            && AnnotatedElementUtils.hasAnnotation(handler.getBeanType(), SuperAdminOnly.class));
    return superAdmin ? "super_admin" : "admin";
  }
}
