package io.gshare.api.signin;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.BrowserSession;
import io.gshare.api.security.Caller;
import io.gshare.api.security.Callers;
import io.gshare.api.security.InvalidTokenException;
import io.gshare.api.security.OidcProperties;
import io.gshare.api.security.SignInPaths;
import io.gshare.api.user.UserService;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Where a browser starts and ends its sign-in; the provider's round trip between is Spring Security's. */
@RestController
@Tag(name = "sign-in")
class SignInController {

  private final OidcProperties oidc;
  private final BrowserSession browser;
  private final Callers callers;
  private final UserService users;
  private final SessionUrlSignIn sessionUrls;

  SignInController(OidcProperties oidc, BrowserSession browser, Callers callers, UserService users,
      SessionUrlSignIn sessionUrls) {
    this.oidc = oidc;
    this.browser = browser;
    this.callers = callers;
    this.users = users;
    this.sessionUrls = sessionUrls;
  }

  @GetMapping(SignInPaths.CONNECT)
  @Operation(summary = "A session router's auth-signin: back to the session URL rd with a one-time code for its"
      + " domain, after signing in on the console where needed; 403 for someone else's session")
  // A browser's page: it answers redirects and HTML, not problem documents.
  @ApiResponse(responseCode = "302", description = "to the session URL with a one-time code, or to /auth/login first",
      headers = @Header(name = "Location", schema = @Schema(type = "string")))
  @ApiResponse(responseCode = "401", description = "not signed in, and no identity provider to sign in with", content = @Content(mediaType = "text/html", schema = @Schema(type = "string")))
  @ApiResponse(responseCode = "403", description = "someone else's session, or one not running", content = @Content(mediaType = "text/html", schema = @Schema(type = "string")))
  @ApiResponse(responseCode = "422", description = "rd is not a session URL", content = @Content(mediaType = "text/html", schema = @Schema(type = "string")))
  void connect(@RequestParam(required = false) String rd, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    Caller.User caller = null;
    var token = browser.token(request);
    if (token.isPresent()) {
      try {
        caller = callers.user(token.get());
      } catch (InvalidTokenException expired) {
        caller = null;
      }
    }
    if (caller == null) {
      if (!oidc.enabled()) {
        SignInFlow.page(response, 401, "Not signed in", "Open the session from the console after signing in with an"
            + " API token; this gShare has no identity provider configured.");
        return;
      }
      String back = SignInPaths.CONNECT + "?rd=" + URLEncoder.encode(rd == null ? "" : rd,
          StandardCharsets.UTF_8);
      response.sendRedirect(request.getContextPath() + SignInPaths.LOGIN + "?next="
          + URLEncoder.encode(back, StandardCharsets.UTF_8));
      return;
    }
    try {
      response.sendRedirect(sessionUrls.redirectWithCode(caller, rd).toString());
    } catch (GshareException refused) {
      SignInFlow.page(response, refused.code().status(), "Cannot open this session", refused.getMessage());
    }
  }

  @GetMapping(SignInPaths.LOGIN)
  @Operation(summary = "Sign in with the organisation's identity provider (a browser redirect); next: a path of this"
      + " site to return to")
  @ApiResponse(responseCode = "302", description = "to the identity provider",
      headers = @Header(name = "Location", schema = @Schema(type = "string")))
  @ApiResponse(responseCode = "404", description = "sign-in is off: no identity provider configured", content = @Content(mediaType = "text/html", schema = @Schema(type = "string")))
  void login(@RequestParam(required = false) String next, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    if (!oidc.enabled()) {
      SignInFlow.page(response, 404, "Sign-in is off", "This gShare has no identity provider configured"
          + " (gshare.oidc.issuer-uri); sign in with an API token instead.");
      return;
    }
    request.getSession(true).setAttribute(SignInFlow.NEXT, SignInFlow.safeNext(next));
    response.sendRedirect(request.getContextPath() + SignInPaths.AUTHORIZATION + "/"
        + OidcClientRegistrations.REGISTRATION_ID);
  }

  @PostMapping(SignInPaths.LOGOUT)
  @Operation(summary = "Sign out: the browser's token is revoked and its cookies removed (needs the CSRF header)")
  @ApiResponse(responseCode = "204", description = "signed out (also when it was not signed in)")
  @ProblemResponses({ProblemCode.FORBIDDEN})
  void logout(HttpServletRequest request, HttpServletResponse response) throws IOException {
    var token = browser.token(request);
    if (token.isPresent()) {
      if (!browser.csrfEchoed(request)) {
        throw new GshareException(ProblemCode.FORBIDDEN,
            "sign-out must carry the " + BrowserSession.CSRF_HEADER + " header (the value of the "
                + BrowserSession.CSRF_COOKIE + " cookie), as the console sends it");
      }
      try {
        var caller = callers.user(token.get());
        users.revoke(caller, caller.userId(), caller.tokenId());
      } catch (InvalidTokenException | GshareException alreadyGone) {
        // expired, revoked or unknown: signing out only clears the cookies
      }
    }
    browser.clear(request, response);
    response.setStatus(204);
  }
}
