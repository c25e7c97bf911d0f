package io.gshare.api.internalplane;

import io.gshare.api.security.Caller;
import io.gshare.api.security.Callers;
import io.gshare.api.security.InvalidTokenException;
import io.gshare.api.security.OidcProperties;
import io.gshare.api.security.OpenPaths;
import io.gshare.api.security.SecurityProperties;
import io.gshare.api.security.SignInPaths;
import io.gshare.api.session.SessionService;
import io.gshare.api.signin.SessionUrlSignIn;
import io.gshare.core.audit.AuditLog;
import io.gshare.core.session.SessionRepository;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.http.ResponseCookie;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RestController;

/**
 * The external-auth check of session URLs ({@code https://<session_domain>/s/<sessionId>/…}), in the two shapes
 * the session routers send it: ingress-nginx's auth-url ({@code GET /internal/connect/verify} with the
 * original URL in {@code X-Original-URL}) and Envoy Gateway's {@code extAuth.http} (Envoy's ext_authz HTTP
 * service: the original method, the original path appended to {@code /internal/connect/verify}, the
 * original host in {@code Host} or {@code X-Forwarded-Host}). 200 when the caller owns the session, 401 when
 * not signed in, 403 otherwise. One indexed read, no Temporal call and no cache of its own; see
 * docs/session-urls.md for the ingress annotations and the SecurityPolicy.
 */
@RestController
@Tag(name = "internal")
class ConnectVerifyController {

  static final Pattern SESSION_PATH = SessionUrlSignIn.SESSION_PATH;

  private final Callers callers;
  private final SessionRepository sessions;
  private final AuditLog audit;
  private final SecurityProperties properties;
  private final SessionUrlSignIn signIn;
  private final OidcProperties oidc;
  private final SessionService sessionService;

  ConnectVerifyController(Callers callers, SessionRepository sessions, AuditLog audit,
      SecurityProperties properties, SessionUrlSignIn signIn,
      OidcProperties oidc, SessionService sessionService) {
    this.callers = callers;
    this.sessions = sessions;
    this.audit = audit;
    this.properties = properties;
    this.signIn = signIn;
    this.oidc = oidc;
    this.sessionService = sessionService;
  }

  @GetMapping(OpenPaths.CONNECT_VERIFY)
  @Operation(summary = "auth-url for session ingresses: 2xx may open, 401 not signed in, 403 not yours")
  // The verdicts of an auth check: statuses with no body, as ingress-nginx and Envoy read them.
  @ApiResponse(responseCode = "200", description = "may open the session (X-Gshare-User, X-Gshare-Session name who and"
      + " which); with a one-time code, also the session's cookie", headers = {
          @Header(name = "X-Gshare-User", schema = @Schema(type = "string")),
          @Header(name = "X-Gshare-Session", schema = @Schema(type = "string"))}, content = @Content())
  @ApiResponse(responseCode = "401", description = "not signed in: no token, or not a valid one",
      headers = @Header(name = "WWW-Authenticate", schema = @Schema(type = "string")), content = @Content())
  @ApiResponse(responseCode = "403", description = "not a session URL, not the caller's session, or not on its domain",
      content = @Content())
  ResponseEntity<Void> verify(HttpServletRequest request,
      @RequestHeader(name = "X-Original-URL", required = false) String originalUrl) {
    return decide(request, originalUrl);
  }

  // Every method: Envoy's check keeps the original request's (a notebook's POST, PUT, DELETE, WebSocket GET...).
  @RequestMapping(path = OpenPaths.CONNECT_VERIFY + "/**", method = {
      RequestMethod.GET, RequestMethod.HEAD, RequestMethod.POST, RequestMethod.PUT, RequestMethod.PATCH,
      RequestMethod.DELETE, RequestMethod.OPTIONS})
  @Operation(summary = "Envoy Gateway's extAuth for session routes: the original path after the prefix, any method")
  // The verdicts of an auth check: statuses with no body, as ingress-nginx and Envoy read them.
  @ApiResponse(responseCode = "200", description = "may open the session (X-Gshare-User, X-Gshare-Session name who and"
      + " which); with a one-time code, also the session's cookie", headers = {
          @Header(name = "X-Gshare-User", schema = @Schema(type = "string")),
          @Header(name = "X-Gshare-Session", schema = @Schema(type = "string"))}, content = @Content())
  @ApiResponse(responseCode = "401", description = "not signed in: no token, or not a valid one",
      headers = @Header(name = "WWW-Authenticate", schema = @Schema(type = "string")), content = @Content())
  @ApiResponse(responseCode = "403", description = "not a session URL, not the caller's session, or not on its domain",
      content = @Content())
  @ApiResponse(responseCode = "302", description = "a browser (Accept text/html) without a cookie: to sign in first",
      headers = @Header(name = "Location", schema = @Schema(type = "string")))
  ResponseEntity<Void> verifyExtAuth(HttpServletRequest request,
      @RequestHeader(name = "X-Forwarded-Host", required = false) String forwardedHost,
      @RequestHeader(name = "Host", required = false) String host,
      @RequestHeader(name = "X-Forwarded-Proto", required = false) String proto) {
    String originalHost = forwardedHost != null && !forwardedHost.isBlank() ? forwardedHost.split(",")[0].trim() : host;
    String path = request.getRequestURI().substring(OpenPaths.CONNECT_VERIFY.length())
        + (request.getQueryString() == null ? "" : "?" + request.getQueryString());
    String scheme = "http".equalsIgnoreCase(proto) ? "http" : "https";
    String original = originalHost == null ? null : scheme + "://" + originalHost + path;
    ResponseEntity<Void> verdict = decide(request, original);
    // Envoy returns the check's own answer to the client: a browser without a cookie is sent to sign in, as
    // ingress-nginx's auth-signin does (ingress-nginx itself turns anything but 2xx/401/403 into a 500).
    String accept = request.getHeader("Accept");
    if (verdict.getStatusCode().value() == 401 && original != null && accept != null && accept.contains("text/html")) {
      return ResponseEntity.status(302).header("Location", sessionService.signInUrl() + "?rd="
          + URLEncoder.encode(original, StandardCharsets.UTF_8)).build();
    }
    return verdict;
  }

  private ResponseEntity<Void> decide(HttpServletRequest request, String originalUrl) {
    URI url;
    try {
      url = originalUrl == null ? null : URI.create(originalUrl);
    } catch (IllegalArgumentException e) {
      url = null;
    }
    String token = token(request);
    if (token == null) {
      // Back from the console's /auth/connect with a one-time code: redeemed once, for this session only.
      String code = codeOf(url);
      Optional<String> session = SessionUrlSignIn.sessionOf(url);
      if (code != null && session.isPresent()) {
        Optional<SessionUrlSignIn.Redeemed> redeemed = signIn.redeem(code, session.get());
        if (redeemed.isPresent()) {
          ResponseEntity<Void> verdict = verdict(redeemed.get().caller(), url, originalUrl);
          if (verdict.getStatusCode().is2xxSuccessful()) {
            return ResponseEntity.status(verdict.getStatusCode()).headers(verdict.getHeaders())
                .header("Set-Cookie", ResponseCookie.from(properties.sessionCookie(),
                        redeemed.get().token().token())
                    .httpOnly(true).secure("https".equalsIgnoreCase(url.getScheme())).sameSite("Lax")
                    .path("/s/" + session.get() + "/").maxAge(oidc.browserSessionTtl()).build().toString())
                .build();
          }
          return verdict;
        }
      }
    }
    Caller.User caller;
    try {
      caller = callers.user(token);
    } catch (InvalidTokenException e) {
      return ResponseEntity.status(401)
          .header("WWW-Authenticate", "Bearer error=\"invalid_token\", error_description=\"" + e.getMessage() + "\"")
          .build();
    }
    return verdict(caller, url, originalUrl);
  }

  /** The one-time code in the original URL's query, if any. */
  private static String codeOf(URI url) {
    if (url == null || url.getRawQuery() == null) {
      return null;
    }
    for (String pair : url.getRawQuery().split("&")) {
      if (pair.startsWith(SignInPaths.CODE_PARAM + "=")) {
        return URLDecoder.decode(pair.substring(SignInPaths.CODE_PARAM.length() + 1),
            StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  private ResponseEntity<Void> verdict(Caller.User caller, URI url, String originalUrl) {
    Matcher m = url == null || url.getRawPath() == null ? null : SESSION_PATH.matcher(url.getRawPath());
    if (m == null || !m.matches()) {
      audit.denied(caller.actor(), "session_url", originalUrl, "not a session URL");
      return ResponseEntity.status(403).build();
    }
    String sessionId = m.group(1);
    Optional<SessionRepository.UrlTarget> target = sessions.urlTargetOf(sessionId);
    String why = target.isEmpty() ? "no such session"
        : !target.get().userId().equals(caller.userId()) ? "not the owner"
        : url.getHost() == null || !url.getHost().equalsIgnoreCase(String.valueOf(target.get().sessionDomain()))
            ? "host is not the session's cluster domain"
        : null;
    if (why != null) {
      audit.denied(caller.actor(), "session", sessionId, why);
      return ResponseEntity.status(403).build();
    }
    return ResponseEntity.ok()
        .header("X-Gshare-User", caller.userId())
        .header("X-Gshare-Session", sessionId)
        .build();
  }

  /** The user token from the session cookie, else from a bearer header (API clients, notebooks' tools). */
  private String token(HttpServletRequest request) {
    Cookie[] cookies = request.getCookies();
    if (cookies != null) {
      for (Cookie cookie : cookies) {
        if (properties.sessionCookie().equals(cookie.getName()) && !cookie.getValue().isBlank()) {
          return cookie.getValue();
        }
      }
    }
    String header = request.getHeader("Authorization");
    return header != null && header.regionMatches(true, 0, "Bearer ", 0, 7) ? header.substring(7).trim() : null;
  }
}
