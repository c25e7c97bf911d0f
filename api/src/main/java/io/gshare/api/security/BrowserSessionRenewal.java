package io.gshare.api.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Keeps an active browser signed in: a call authenticated by the browser's cookie (not a bearer header) whose token
 * has less than half of {@code gshare.oidc.browser-session-ttl} left gets a fresh token in the cookie. The old one
 * simply expires; an idle browser's sign-in ends when its token does. The CSRF cookie stays as it is, so calls already
 * on their way keep matching it.
 */
final class BrowserSessionRenewal extends OncePerRequestFilter {

  private final BrowserSession browser;
  private final BrowserTokens tokens;
  private final OidcProperties oidc;
  private final Clock clock;

  BrowserSessionRenewal(BrowserSession browser, BrowserTokens tokens, OidcProperties oidc, Clock clock) {
    this.browser = browser;
    this.tokens = tokens;
    this.oidc = oidc;
    this.clock = clock;
  }

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    renewIfHalfGone(request, response);
    chain.doFilter(request, response);
  }

  private void renewIfHalfGone(HttpServletRequest request, HttpServletResponse response) {
    if (request.getHeader("Authorization") != null || browser.token(request).isEmpty()) {
      return;
    }
    Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
    if (!(authentication instanceof CallerAuthentication signedIn)
        || !(signedIn.getPrincipal() instanceof Caller.User user) || signedIn.getCredentials().getExpiresAt() == null) {
      return;
    }
    Duration left = Duration.between(clock.instant(), signedIn.getCredentials().getExpiresAt());
    if (left.compareTo(oidc.browserSessionTtl().dividedBy(2)) >= 0) {
      return;
    }
    String fresh = tokens.issueBrowserToken(user.userId(), oidc.browserSessionTtl());
    browser.renew(request, response, fresh, oidc.browserSessionTtl());
  }
}
