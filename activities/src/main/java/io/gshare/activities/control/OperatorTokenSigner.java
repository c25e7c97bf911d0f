package io.gshare.activities.control;

/** Signs a fresh {@code operator:<clusterId>} token for a cluster's worker. */
@FunctionalInterface
public interface OperatorTokenSigner {

  String sign(String clusterId);
}
