package io.gshare.activities.control;

import java.time.Instant;

/** Signs a fresh {@code operator:<clusterId>} token for a cluster's worker. */
@FunctionalInterface
public interface OperatorTokenSigner {

  Signed sign(String clusterId);

  /** A signed token with the claims the control plane records of it (never the token itself). */
  record Signed(String token, String jti, Instant issuedAt, Instant expiresAt) {}
}
