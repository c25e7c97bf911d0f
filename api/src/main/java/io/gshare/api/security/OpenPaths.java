package io.gshare.api.security;

/** The only paths answered without a token (see {@link WebSecurityConfig}); the seeds need each of them. */
public final class OpenPaths {

  /** Liveness probe. */
  public static final String HEALTHZ = "/healthz";
  /** The public keys of operator tokens, for anyone who checks one. */
  public static final String INTERNAL_JWKS = "/.well-known/gshare-internal-jwks.json";
  /** ingress-nginx's auth-url: it authenticates the session cookie or bearer itself and answers 2xx/401/403. */
  public static final String CONNECT_VERIFY = "/internal/connect/verify";

  private OpenPaths() {}

  /**
   * Whether {@code path} (a request path, or a route pattern such as {@code /internal/connect/verify/**}) is answered
   * without a token: the open chain of {@link WebSecurityConfig} and the browser sign-in's paths. The served OpenAPI
   * document declares no 401 for these.
   */
  public static boolean isOpen(String path) {
    return path.equals(HEALTHZ) || path.equals(INTERNAL_JWKS) || path.equals(CONNECT_VERIFY)
        || path.startsWith(CONNECT_VERIFY + "/") || SignInPaths.isSignIn(path);
  }
}
