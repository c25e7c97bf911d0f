package io.gshare.api.security;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseCookie;
import org.springframework.stereotype.Component;

/**
 * A browser's sign-in: the user token in an HttpOnly cookie ({@code gshare.security.session-cookie}, the one
 * session URLs accept too), and a CSRF token in a readable cookie that the console echoes in {@value #CSRF_HEADER}
 * on every state-changing call (double submit: another site can make the browser send the cookies, but cannot read
 * the CSRF cookie to set the header). Both are SameSite=Lax, and Secure unless the request came over plain HTTP
 * (the dev runtime) or {@code gshare.oidc.secure-cookies} says otherwise.
 */
@Component
public class BrowserSession {

  public static final String CSRF_COOKIE = "gshare_csrf";
  public static final String CSRF_HEADER = "X-CSRF-Token";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final String tokenCookie;
  private final String secureCookies;

  BrowserSession(SecurityProperties security, OidcProperties oidc) {
    this.tokenCookie = security.sessionCookie();
    this.secureCookies = oidc.secureCookies();
  }

  /** Sets both cookies for a token that lives {@code ttl}. */
  public void write(HttpServletRequest request, HttpServletResponse response, String token, Duration ttl) {
    byte[] csrf = new byte[24];
    RANDOM.nextBytes(csrf);
    boolean secure = secure(request);
    response.addHeader(HttpHeaders.SET_COOKIE, ResponseCookie.from(tokenCookie, token).httpOnly(true).secure(secure)
        .sameSite("Lax").path("/").maxAge(ttl).build().toString());
    response.addHeader(HttpHeaders.SET_COOKIE, ResponseCookie.from(CSRF_COOKIE,
            Base64.getUrlEncoder().withoutPadding().encodeToString(csrf))
        .httpOnly(false).secure(secure).sameSite("Lax").path("/").maxAge(ttl).build().toString());
  }

  /** Replaces the token cookie only (a renewal): the CSRF cookie, and calls already sent with it, stay valid. */
  public void renew(HttpServletRequest request, HttpServletResponse response, String token, Duration ttl) {
    response.addHeader(HttpHeaders.SET_COOKIE, ResponseCookie.from(tokenCookie, token).httpOnly(true)
        .secure(secure(request)).sameSite("Lax").path("/").maxAge(ttl).build().toString());
  }

  /** Removes both cookies (sign-out). */
  public void clear(HttpServletRequest request, HttpServletResponse response) {
    boolean secure = secure(request);
    for (String name : new String[] {tokenCookie, CSRF_COOKIE}) {
      response.addHeader(HttpHeaders.SET_COOKIE, ResponseCookie.from(name, "").httpOnly(name.equals(tokenCookie))
          .secure(secure).sameSite("Lax").path("/").maxAge(0).build().toString());
    }
  }

  /** The token the browser's cookie carries, if any. */
  public Optional<String> token(HttpServletRequest request) {
    return cookie(request, tokenCookie);
  }

  /** Whether a state-changing call echoes the CSRF cookie in its header. */
  public boolean csrfEchoed(HttpServletRequest request) {
    String header = request.getHeader(CSRF_HEADER);
    Optional<String> cookie = cookie(request, CSRF_COOKIE);
    return header != null && cookie.isPresent() && MessageDigest.isEqual(
        header.getBytes(StandardCharsets.UTF_8), cookie.get().getBytes(StandardCharsets.UTF_8));
  }

  /** GET, HEAD and OPTIONS change nothing; everything else needs the CSRF header when the cookie authenticates. */
  public static boolean changesState(HttpServletRequest request) {
    return !Arrays.asList("GET", "HEAD", "OPTIONS").contains(request.getMethod());
  }

  private boolean secure(HttpServletRequest request) {
    return switch (secureCookies) {
      case "always" -> true;
      case "never" -> false;
      default -> request.isSecure() || "https".equalsIgnoreCase(request.getHeader("X-Forwarded-Proto"));
    };
  }

  private static Optional<String> cookie(HttpServletRequest request, String name) {
    Cookie[] cookies = request.getCookies();
    if (cookies == null) {
      return Optional.empty();
    }
    return Arrays.stream(cookies).filter(c -> c.getName().equals(name)).map(Cookie::getValue)
        .filter(v -> !v.isBlank()).findFirst();
  }
}
