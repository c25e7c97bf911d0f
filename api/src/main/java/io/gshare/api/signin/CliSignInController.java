package io.gshare.api.signin;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.BrowserSession;
import io.gshare.api.security.Caller;
import io.gshare.api.security.Callers;
import io.gshare.api.security.InvalidTokenException;
import io.gshare.api.security.OidcProperties;
import io.gshare.api.security.SignInPaths;
import io.gshare.api.user.UserService;
import io.gshare.core.audit.AuditLog;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.user.CliSignInCodes;
import io.gshare.core.user.UserRepository;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code gshare login} without a token: the OAuth 2.0 loopback redirect of native apps (RFC 8252) in front of the
 * console's own sign-in. The CLI listens on 127.0.0.1, opens this page with its port, a state and a PKCE challenge;
 * the browser signs in with the organisation's provider as for the console and is sent back to the loopback with a
 * one-time code ({@link CliSignInCodes}); the CLI redeems it with its verifier for an API token of its own.
 */
@RestController
@Tag(name = "sign-in")
class CliSignInController {

  static final String TOKEN_NAME = "gshare-cli";

  private final OidcProperties oidc;
  private final BrowserSession browser;
  private final Callers callers;
  private final CliSignInCodes codes;
  private final UserRepository users;
  private final UserService tokens;
  private final AuditLog audit;

  CliSignInController(OidcProperties oidc, BrowserSession browser, Callers callers, CliSignInCodes codes,
      UserRepository users, UserService tokens, AuditLog audit) {
    this.oidc = oidc;
    this.browser = browser;
    this.callers = callers;
    this.codes = codes;
    this.users = users;
    this.tokens = tokens;
    this.audit = audit;
  }

  /** The token exchange's body: the code the loopback received and the PKCE verifier behind its challenge. */
  record CliTokenRequest(@NotBlank @Size(max = 64) String code, @NotBlank @Size(min = 43, max = 128) String codeVerifier,
      @Size(max = 60) String client) {}

  /** The CLI's API token, and who it signs in. */
  record CliToken(String token, String tokenId, Instant expiresAt, String userId, String email) {}

  @GetMapping(SignInPaths.CLI)
  @Operation(summary = "gshare login's browser step: sign in where needed, then back to the CLI's loopback listener"
      + " http://127.0.0.1:<port>/callback with a one-time code bound to its PKCE challenge")
  // A browser's page: it answers redirects and HTML, not problem documents.
  @ApiResponse(responseCode = "302",
      description = "to the CLI's loopback listener with a one-time code, or to /auth/login first",
      headers = @Header(name = "Location",
          schema = @Schema(type = "string")))
  @ApiResponse(responseCode = "400",
      description = "not a gshare login: a bad port, state or code challenge",
      content = @Content(mediaType = "text/html",
          schema = @Schema(type = "string")))
  @ApiResponse(responseCode = "404",
      description = "sign-in is off: no identity provider configured",
      content = @Content(mediaType = "text/html",
          schema = @Schema(type = "string")))
  void start(
      // Optional and read as text here: a browser missing one, or with a port that is not a number, gets the page
      // below, not a problem document.
      @Parameter(description = "the CLI's loopback port", required = true,
          schema = @Schema(type = "integer", minimum = "1024", maximum = "65535"))
      @RequestParam(required = false) String port,
      @Parameter(required = true) @RequestParam(required = false) String state,
      @Parameter(required = true)
      @RequestParam(name = "code_challenge", required = false) String challenge,
      HttpServletRequest request, HttpServletResponse response) throws IOException {
    int loopback = port != null && port.matches("\\d{4,5}") ? Integer.parseInt(port) : -1;
    if (loopback < 1024 || loopback > 65535 || state == null || state.isBlank() || state.length() > 128
        || !state.matches("[A-Za-z0-9._~-]+") || challenge == null || !CliSignInCodes.isChallenge(challenge)) {
      SignInFlow.page(response, 400, "Not a gshare login", "This page is opened by 'gshare login' with its port,"
          + " state and code challenge; run that command again.");
      return;
    }
    Caller.User caller = signedIn(request);
    if (caller == null) {
      if (!oidc.enabled()) {
        SignInFlow.page(response, 404, "Sign-in is off", "This gShare has no identity provider configured;"
            + " run 'gshare login --token <API token>' instead.");
        return;
      }
      String back = SignInPaths.CLI + "?port=" + loopback + "&state=" + state + "&code_challenge=" + challenge;
      response.sendRedirect(request.getContextPath() + SignInPaths.LOGIN + "?next="
          + URLEncoder.encode(back, StandardCharsets.UTF_8));
      return;
    }
    String code = codes.issue(caller.userId(), challenge);
    // The loopback address only (RFC 8252 7.3): never a host name another machine could answer for.
    response.sendRedirect("http://127.0.0.1:" + loopback + "/callback?code=" + code + "&state=" + state);
  }

  @PostMapping(SignInPaths.CLI_TOKEN)
  @Transactional
  @Operation(summary = "gshare login's token exchange: the one-time code and its PKCE verifier for an API token"
      + " (401 when the code is unknown, used, expired or the verifier does not match)")
  @ProblemResponses(ProblemCode.UNAUTHORIZED)
  CliToken token(@Valid @RequestBody CliTokenRequest body) {
    String userId = codes.redeem(body.code(), body.codeVerifier())
        .orElseThrow(() -> new GshareException(ProblemCode.UNAUTHORIZED,
            "the sign-in code is unknown, used or expired, or the verifier does not match; run gshare login again"));
    UserRepository.User user = users.findById(userId).filter(u -> !u.disabled())
        .orElseThrow(() -> new GshareException(ProblemCode.UNAUTHORIZED, "this user is disabled"));
    String name = body.client() == null || body.client().isBlank() ? TOKEN_NAME : TOKEN_NAME + " " + body.client();
    UserService.IssuedToken token = tokens.issue(user.id(), name, null);
    audit.changed(user.email(), "token.cli_sign_in", "token", token.id(), "gshare login in a browser",
        Map.of("name", name));
    return new CliToken(token.token(), token.id(), token.expiresAt(), user.id(), user.email());
  }

  private Caller.User signedIn(HttpServletRequest request) {
    var token = browser.token(request);
    if (token.isEmpty()) {
      return null;
    }
    try {
      return callers.user(token.get());
    } catch (InvalidTokenException expired) {
      return null;
    }
  }
}
