package io.gshare.api.signin;

import io.gshare.api.security.BrowserSession;
import io.gshare.api.security.OidcProperties;
import io.gshare.core.error.GshareException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.io.IOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.core.oidc.user.OidcUser;
import org.springframework.security.web.authentication.AuthenticationFailureHandler;
import org.springframework.security.web.authentication.AuthenticationSuccessHandler;
import org.springframework.stereotype.Component;
import org.springframework.web.util.HtmlUtils;

/**
 * The end of the provider's round trip. Success: the user is found or provisioned, the browser gets its cookies, the
 * short-lived HTTP session that carried the OAuth2 state is dropped (gShare keeps no server-side web session), and
 * the browser goes where it was going. Refusal and failure: a page that says why in words.
 */
@Component
public class SignInFlow implements AuthenticationSuccessHandler, AuthenticationFailureHandler {

  /** Where the browser goes after signing in; set by {@code /auth/login?next=}. */
  static final String NEXT = "gshare.signin.next";
  private static final Logger log = LoggerFactory.getLogger(SignInFlow.class);

  private final SignInService signIn;
  private final BrowserSession browser;
  private final OidcProperties oidc;

  SignInFlow(SignInService signIn, BrowserSession browser, OidcProperties oidc) {
    this.signIn = signIn;
    this.browser = browser;
    this.oidc = oidc;
  }

  @Override
  public void onAuthenticationSuccess(HttpServletRequest request, HttpServletResponse response,
      Authentication authentication) throws IOException {
    HttpSession session = request.getSession(false);
    String next = session == null ? null : (String) session.getAttribute(NEXT);
    if (session != null) {
      session.invalidate();
    }
    SecurityContextHolder.clearContext();
    Map<String, Object> claims = authentication.getPrincipal() instanceof OidcUser user ? user.getClaims() : Map.of();
    try {
      SignInService.SignedIn signedIn = signIn.signIn(claims);
      browser.write(request, response, signedIn.token().token(), oidc.browserSessionTtl());
      log.info("{} signed in through the identity provider (user {})", signedIn.email(), signedIn.userId());
      response.sendRedirect(safeNext(next));
    } catch (GshareException refused) {
      page(response, refused.code().status(), "Sign-in refused", refused.getMessage());
    }
  }

  @Override
  public void onAuthenticationFailure(HttpServletRequest request, HttpServletResponse response,
      AuthenticationException exception) throws IOException {
    log.warn("a sign-in failed: {}", exception.getMessage());
    page(response, 401, "Sign-in failed", "The identity provider's answer was not accepted: " + exception.getMessage());
  }

  /** Only a path of this site: never another host (an open redirect would hand the sign-in to anyone). */
  static String safeNext(String next) {
    if (next == null || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\") || next.contains("\n")
        || next.contains("\r")) {
      return "/";
    }
    return next;
  }

  static void page(HttpServletResponse response, int status, String title, String detail) throws IOException {
    response.setStatus(status);
    response.setContentType("text/html;charset=UTF-8");
    response.getWriter().write("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
        + HtmlUtils.htmlEscape(title) + " · gShare</title></head><body><main><h1>" + HtmlUtils.htmlEscape(title)
        + "</h1><p role=\"alert\">" + HtmlUtils.htmlEscape(detail) + "</p><p><a href=\"/auth/login\">Sign in again</a>"
        + "</p></main></body></html>");
  }
}
