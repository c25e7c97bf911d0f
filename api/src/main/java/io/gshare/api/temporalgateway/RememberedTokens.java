package io.gshare.api.temporalgateway;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;

/**
 * Operator tokens the gateway verified, remembered for a few seconds: a worker makes a call per long poll and per
 * answer, and verifying each (RS256, then the cluster's row) was most of the gateway's own cost
 * ({@code make bench-gateway}). The price is bounded by {@code remember}: a token that expires, or a cluster
 * detached, is still taken that long. Refusals are not remembered, so a token is never refused for longer than it is
 * bad.
 */
public final class RememberedTokens implements OperatorAuthenticator {

  /** More distinct tokens than any fleet's workers hold at once (one per cluster, two during a rotation). */
  private static final long MAX_TOKENS = 10_000;

  private final OperatorAuthenticator verifier;
  private final Cache<String, String> verified;

  RememberedTokens(OperatorAuthenticator verifier, Duration remember, Ticker ticker) {
    this.verifier = verifier;
    this.verified = Caffeine.newBuilder().expireAfterWrite(remember).maximumSize(MAX_TOKENS).ticker(ticker).build();
  }

  /** {@code verifier} itself when {@code remember} is zero. */
  public static OperatorAuthenticator of(OperatorAuthenticator verifier, Duration remember) {
    return remember.isZero() ? verifier : new RememberedTokens(verifier, remember, Ticker.systemTicker());
  }

  @Override
  public String clusterId(String bearerToken) throws Refused {
    String known = verified.getIfPresent(bearerToken);
    if (known != null) {
      return known;
    }
    String clusterId = verifier.clusterId(bearerToken);
    verified.put(bearerToken, clusterId);
    return clusterId;
  }
}
