package io.gshare.api.security;

import io.gshare.core.audit.AuditLog;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.core.convert.converter.Converter;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.access.expression.method.DefaultMethodSecurityExpressionHandler;
import org.springframework.security.access.expression.method.MethodSecurityExpressionHandler;
import org.springframework.security.access.hierarchicalroles.RoleHierarchy;
import org.springframework.security.access.hierarchicalroles.RoleHierarchyImpl;
import org.springframework.security.authorization.method.PreAuthorizeAuthorizationManager;
import org.springframework.security.config.annotation.method.configuration.EnableMethodSecurity;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.server.resource.BearerTokenErrors;
import org.springframework.security.oauth2.server.resource.web.BearerTokenResolver;
import org.springframework.security.oauth2.server.resource.web.DefaultBearerTokenResolver;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.util.matcher.DispatcherTypeRequestMatcher;
import org.springframework.security.web.util.matcher.OrRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Default-deny, on Spring Security's OAuth2 resource server: one filter chain per token kind, and
 * everything not named answers 401.
 * <ol>
 *   <li>the management server (its own port, {@code management.server.port}): health and metrics, no
 *       token; it is not routed outside the pod, and Prometheus scrapes it there</li>
 *   <li>open: {@code /healthz}, the internal JWKS, {@code /internal/connect/verify} and the paths under it (it
 *       answers ingress-nginx and Envoy Gateway's external auth with its own verdicts) and the error dispatch</li>
 *   <li>{@code /internal/**}: operator tokens ({@code operator:<clusterId>}, attached clusters only)</li>
 *   <li>{@code /api/**}: user tokens; role, team and disabled flag read from Postgres per request</li>
 *   <li>anything else: 401</li>
 * </ol>
 * Roles are {@code @PreAuthorize} ({@link AdminOnly}, {@link SuperAdminOnly}), checked before the body is
 * read ({@link EarlyAuthorization}); object-level checks stay where objects are loaded ({@link Access}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@EnableWebSecurity
@EnableMethodSecurity
class WebSecurityConfig implements WebMvcConfigurer {

  private final AuditLog audit;

  WebSecurityConfig(AuditLog audit) {
    this.audit = audit;
  }

  @Bean
  static RoleHierarchy roleHierarchy() {
    return RoleHierarchyImpl.withDefaultRolePrefix()
        .role("SUPER_ADMIN").implies("ADMIN")
        .role("ADMIN").implies("USER")
        .build();
  }

  @Bean
  static MethodSecurityExpressionHandler methodSecurityExpressionHandler(RoleHierarchy roleHierarchy) {
    DefaultMethodSecurityExpressionHandler handler = new DefaultMethodSecurityExpressionHandler();
    handler.setRoleHierarchy(roleHierarchy);
    return handler;
  }

  @Override
  public void addInterceptors(InterceptorRegistry registry) {
    PreAuthorizeAuthorizationManager manager = new PreAuthorizeAuthorizationManager();
    manager.setExpressionHandler(methodSecurityExpressionHandler(roleHierarchy()));
    registry.addInterceptor(new EarlyAuthorization(manager, audit));
  }

  @Bean
  @Order(1)
  SecurityFilterChain managementChain(HttpSecurity http, ManagementPort managementPort) throws Exception {
    return stateless(http.securityMatcher(managementPort))
        .authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
        .build();
  }

  @Bean
  @Order(2)
  SecurityFilterChain openChain(HttpSecurity http) throws Exception {
    RequestMatcher open = new OrRequestMatcher(
        request -> path(request).equals(OpenPaths.HEALTHZ),
        request -> path(request).equals(OpenPaths.INTERNAL_JWKS),
        request -> path(request).equals(OpenPaths.CONNECT_VERIFY)
            || path(request).startsWith(OpenPaths.CONNECT_VERIFY + "/"),
        new DispatcherTypeRequestMatcher(DispatcherType.ERROR));
    return stateless(http.securityMatcher(open))
        .authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
        .build();
  }

  @Bean
  @Order(3)
  SecurityFilterChain internalChain(HttpSecurity http, Tokens tokens, Callers callers, SecurityProblems problems)
      throws Exception {
    return tokenChain(http, request -> path(request).startsWith("/internal/"), CallerAuthentication.OPERATOR_AUTHORITY,
        new TokenJwtDecoder(tokens, TokenKind.INTERNAL), callers.operatorConverter(), problems);
  }

  @Bean
  @Order(4)
  SecurityFilterChain apiChain(HttpSecurity http, Tokens tokens, Callers callers, SecurityProblems problems)
      throws Exception {
    return tokenChain(http, request -> path(request).startsWith("/api/"), "ROLE_USER",
        new TokenJwtDecoder(tokens, TokenKind.USER), callers.userConverter(), problems);
  }

  /** A chain that takes one kind of bearer token and needs {@code authority} (the role hierarchy applies). */
  private SecurityFilterChain tokenChain(HttpSecurity http, RequestMatcher paths, String authority, JwtDecoder decoder,
      Converter<Jwt, AbstractAuthenticationToken> converter, SecurityProblems problems) throws Exception {
    return stateless(http.securityMatcher(paths))
        .authorizeHttpRequests(requests -> requests.anyRequest().hasAuthority(authority))
        .oauth2ResourceServer(server -> server
            .bearerTokenResolver(bearerOnly())
            .authenticationEntryPoint(problems)
            .accessDeniedHandler(problems)
            .jwt(jwt -> jwt.decoder(decoder).jwtAuthenticationConverter(converter)))
        .exceptionHandling(exceptions -> exceptions.authenticationEntryPoint(problems).accessDeniedHandler(problems))
        .build();
  }

  @Bean
  @Order(5)
  SecurityFilterChain denyTheRest(HttpSecurity http, SecurityProblems problems) throws Exception {
    return stateless(http)
        .authorizeHttpRequests(requests -> requests.anyRequest().denyAll())
        .exceptionHandling(exceptions -> exceptions.authenticationEntryPoint(problems).accessDeniedHandler(problems))
        .build();
  }

  private static HttpSecurity stateless(HttpSecurity http) throws Exception {
    return http
        .csrf(AbstractHttpConfigurer::disable) // bearer tokens, no cookies: nothing to forge
        .sessionManagement(sessions -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .requestCache(AbstractHttpConfigurer::disable)
        .formLogin(AbstractHttpConfigurer::disable)
        .httpBasic(AbstractHttpConfigurer::disable)
        .logout(AbstractHttpConfigurer::disable);
  }

  /** RFC 6750 header tokens only; any other Authorization scheme is refused by name, not ignored. */
  private static BearerTokenResolver bearerOnly() {
    DefaultBearerTokenResolver bearer = new DefaultBearerTokenResolver();
    return request -> {
      String header = request.getHeader("Authorization");
      if (header != null && !header.isBlank() && !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
        throw new OAuth2AuthenticationException(
            BearerTokenErrors.invalidRequest("the Authorization header must be 'Bearer <token>'"));
      }
      return bearer.resolve(request);
    };
  }

  private static String path(HttpServletRequest request) {
    return request.getRequestURI().substring(request.getContextPath().length());
  }
}
