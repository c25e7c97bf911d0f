package io.gshare.api.security;

/** The browser sign-in's paths, answered without a token (they are how a browser gets one). */
public final class SignInPaths {

  /** Starts a sign-in: a redirect to the provider. */
  public static final String LOGIN = "/auth/login";
  /** Ends one: revokes the browser's token and clears its cookies. */
  public static final String LOGOUT = "/auth/logout";
  /**
   * A session router's auth-signin: a browser without a cookie on a session's domain arrives with {@code rd} (the
   * session URL) and is sent back to it with a one-time code, signing in first where needed.
   */
  public static final String CONNECT = "/auth/connect";
  /**
   * The gshare CLI's sign-in: a browser arrives with the CLI's loopback port, state and PKCE challenge, signs in
   * where needed, and is sent to {@code http://127.0.0.1:<port>/callback} with a one-time code.
   */
  public static final String CLI = "/auth/cli";
  /** Where the CLI redeems that code with its PKCE verifier for an API token. */
  public static final String CLI_TOKEN = "/auth/cli/token";
  /** The query parameter that carries the one-time code to the session URL. */
  public static final String CODE_PARAM = "gshare_code";
  /** Spring Security's redirect to the provider, per registration. */
  public static final String AUTHORIZATION = "/oauth2/authorization";
  /** Spring Security's callback from the provider, per registration. */
  public static final String CALLBACK = "/login/oauth2/code";

  private SignInPaths() {}

  /** Whether {@code path} belongs to the sign-in (its own filter chain, no token needed). */
  public static boolean isSignIn(String path) {
    return path.equals(LOGIN) || path.equals(LOGOUT) || path.equals(CONNECT) || path.equals(CLI) || path.equals(CLI_TOKEN)
        || path.startsWith(AUTHORIZATION + "/")
        || path.startsWith(CALLBACK + "/");
  }
}
