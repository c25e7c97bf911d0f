package io.gshare.activities.control;

import java.time.Instant;

/** Where the control plane records which operator token it wrote into a cluster's Secret. */
@FunctionalInterface
public interface OperatorTokenLedger {

  void issued(String clusterId, String jti, Instant issuedAt, Instant expiresAt);

  OperatorTokenLedger NONE = (clusterId, jti, issuedAt, expiresAt) -> {};
}
