package io.gshare.api.temporalgateway;

/** Who a worker's bearer token speaks for: the internal plane's verification, behind an interface for tests. */
@FunctionalInterface
public interface OperatorAuthenticator {

  /**
   * The cluster whose worker holds {@code bearerToken}.
   *
   * @throws Refused when the token is missing, malformed, expired, not an operator token, or its cluster is detached
   */
  String clusterId(String bearerToken) throws Refused;

  /** A token the gateway does not accept, with the reason (the text of UNAUTHENTICATED). */
  final class Refused extends Exception {
    public Refused(String message) {
      super(message);
    }
  }
}
