package io.gshare.api.security;

import io.gshare.core.audit.AuditLog;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Clock;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.convert.converter.Converter;
import org.springframework.security.access.expression.method.DefaultMethodSecurityExpressionHandler;
import org.springframework.security.access.expression.method.MethodSecurityExpressionHandler;
import org.springframework.security.access.hierarchicalroles.RoleHierarchy;
import org.springframework.security.access.hierarchicalroles.RoleHierarchyImpl;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.authorization.method.PreAuthorizeAuthorizationManager;
import org.springframework.security.config.annotation.method.configuration.EnableMethodSecurity;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.oauth2.client.registration.ClientRegistrationRepository;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.server.resource.BearerTokenErrors;
import org.springframework.security.oauth2.server.resource.web.BearerTokenResolver;
import org.springframework.security.oauth2.server.resource.web.DefaultBearerTokenResolver;
import org.springframework.security.oauth2.server.resource.web.authentication.BearerTokenAuthenticationFilter;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AuthenticationFailureHandler;
import org.springframework.security.web.authentication.AuthenticationSuccessHandler;
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
        request -> OpenPaths.isOpen(path(request)) && !SignInPaths.isSignIn(path(request)),
        new DispatcherTypeRequestMatcher(DispatcherType.ERROR));
    return stateless(http.securityMatcher(open))
        .authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
        .build();
  }

  /**
   * The browser sign-in: {@code /auth/login} and {@code /auth/logout}, and Spring Security's OAuth2 login between
   * (the redirect to the provider and its callback). The one place with an HTTP session: it carries the OAuth2
   * state and nonce across the provider's round trip and is dropped at its end. With several api replicas, the
   * ingress must keep a browser on one replica for those two redirects (session affinity).
   */
  @Bean
  @Order(2)
  SecurityFilterChain signInChain(HttpSecurity http, OidcProperties oidc, ClientRegistrationRepository registrations,
      AuthenticationSuccessHandler signedIn, AuthenticationFailureHandler notSignedIn, SecurityProblems problems)
      throws Exception {
    http.securityMatcher(request -> SignInPaths.isSignIn(path(request)))
        // logout checks the double-submit CSRF header itself; login is a GET that changes nothing; the CLI's token
        // exchange carries no cookie, only the one-time code and its PKCE verifier
        .csrf(AbstractHttpConfigurer::disable)
        .sessionManagement(sessions -> sessions.sessionCreationPolicy(SessionCreationPolicy.IF_REQUIRED))
        .requestCache(AbstractHttpConfigurer::disable)
        .formLogin(AbstractHttpConfigurer::disable)
        .httpBasic(AbstractHttpConfigurer::disable)
        .logout(AbstractHttpConfigurer::disable)
        .authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
        .exceptionHandling(exceptions -> exceptions.authenticationEntryPoint(problems).accessDeniedHandler(problems));
    if (oidc.enabled()) {
      http.oauth2Login(login -> login
          .clientRegistrationRepository(registrations)
          .authorizedClientRepository(new org.springframework.security.oauth2.client.web
              .HttpSessionOAuth2AuthorizedClientRepository())
          .successHandler(signedIn)
          .failureHandler(notSignedIn));
    }
    return http.build();
  }

  /** The console's static files: no token (what they show comes from the API, which needs one). */
  @Bean
  @Order(2)
  SecurityFilterChain consoleChain(HttpSecurity http) throws Exception {
    return stateless(http.securityMatcher(request -> ("GET".equals(request.getMethod())
            || "HEAD".equals(request.getMethod())) && ConsolePaths.isConsole(path(request))))
        .authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
        .build();
  }

  @Bean
  @Order(3)
  SecurityFilterChain internalChain(HttpSecurity http, Tokens tokens, Callers callers, SecurityProblems problems)
      throws Exception {
    return tokenChain(http, request -> path(request).startsWith("/internal/"), CallerAuthentication.OPERATOR_AUTHORITY,
        new TokenJwtDecoder(tokens, TokenKind.INTERNAL), callers.operatorConverter(), problems, bearerOnly());
  }

  @Bean
  @Order(4)
  SecurityFilterChain apiChain(HttpSecurity http, Tokens tokens, Callers callers, SecurityProblems problems,
      BrowserSession browser, BrowserTokens browserTokens, OidcProperties oidc) throws Exception {
    http.addFilterAfter(new BrowserSessionRenewal(browser, browserTokens, oidc, Clock.systemUTC()),
        BearerTokenAuthenticationFilter.class);
    return tokenChain(http, request -> path(request).startsWith("/api/"), "ROLE_USER",
        new TokenJwtDecoder(tokens, TokenKind.USER), callers.userConverter(), problems, bearerOrBrowser(browser));
  }

  /** A chain that takes one kind of bearer token and needs {@code authority} (the role hierarchy applies). */
  private SecurityFilterChain tokenChain(HttpSecurity http, RequestMatcher paths, String authority, JwtDecoder decoder,
      Converter<Jwt, AbstractAuthenticationToken> converter, SecurityProblems problems, BearerTokenResolver tokensFrom)
      throws Exception {
    return stateless(http.securityMatcher(paths))
        .authorizeHttpRequests(requests -> requests.anyRequest().hasAuthority(authority))
        .oauth2ResourceServer(server -> server
            .bearerTokenResolver(tokensFrom)
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

  /**
   * The Authorization header first (API clients); else a signed-in browser's cookie, which a state-changing call must
   * back with the CSRF header (the console sends it; a forged cross-site request cannot).
   */
  private static BearerTokenResolver bearerOrBrowser(BrowserSession browser) {
    BearerTokenResolver bearer = bearerOnly();
    return request -> {
      String token = bearer.resolve(request);
      if (token != null) {
        return token;
      }
      String cookie = browser.token(request).orElse(null);
      if (cookie != null && BrowserSession.changesState(request) && !browser.csrfEchoed(request)) {
        throw new OAuth2AuthenticationException(BearerTokenErrors.invalidRequest("a signed-in browser's "
            + request.getMethod() + " must carry the " + BrowserSession.CSRF_HEADER + " header (the value of the "
            + BrowserSession.CSRF_COOKIE + " cookie)"));
      }
      return cookie;
    };
  }

  private static String path(HttpServletRequest request) {
    return request.getRequestURI().substring(request.getContextPath().length());
  }
}
