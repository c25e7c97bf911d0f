package io.gshare.sim;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * The simulated apiserver's bound service-account tokens: minted by the TokenRequest subresource
 * ({@code POST /api/v1/namespaces/{ns}/serviceaccounts/{name}/token}), as the kubelet asks for the token it
 * projects into a pod, and refused with 401 once expired. Like an apiserver's
 * {@code --service-account-max-token-expiration}, {@link #maxExpiration} caps what a request may ask for, so a test
 * can make tokens expire within seconds. Other bearer tokens (the kubeconfig's {@link SimulatedCluster#TOKEN}) are
 * not service-account tokens and are accepted as before.
 */
public final class ServiceAccountTokens {

  /** The TokenRequest subresource of a ServiceAccount. */
  static final Pattern PATH = Pattern.compile("/api/v1/namespaces/([^/]+)/serviceaccounts/([^/]+)/token");
  /** What every minted token starts with: a bearer without it is not this issuer's. */
  static final String PREFIX = "sim-sa.";
  /** The TokenRequest API's default and its floor (the apiserver refuses less than 10 minutes). */
  static final Duration DEFAULT_EXPIRATION = Duration.ofHours(1);
  static final Duration MIN_EXPIRATION = Duration.ofMinutes(10);

  /** A minted token: whose, and until when. */
  record Issued(String namespace, String serviceAccount, Instant expiresAt) {}

  private final Clock clock;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, Issued> issued = new ConcurrentHashMap<>();
  private final AtomicLong refused = new AtomicLong();
  private volatile Duration maxExpiration;

  ServiceAccountTokens(Clock clock) {
    this.clock = clock;
  }

  /** Caps the lifetime of tokens minted from now on; null lifts the cap. */
  public void maxExpiration(Duration max) {
    this.maxExpiration = max;
  }

  /** Expires every token minted so far, at once (a stand-in for a kubelet that stopped refreshing). */
  public void expireAll() {
    Instant now = clock.instant();
    issued.replaceAll((token, i) -> new Issued(i.namespace(), i.serviceAccount(), now));
  }

  /** How many requests were refused for an expired or unknown service-account token. */
  public long refused() {
    return refused.get();
  }

  /** How many tokens were minted. */
  public int minted() {
    return issued.size();
  }

  /** A token as the TokenRequest answers it. */
  record Minted(String token, Instant expiresAt, long expirationSeconds) {}

  /**
   * Mints a token for the ServiceAccount for {@code requestedSeconds} (null: the default), within the cap.
   *
   * @throws IllegalArgumentException for less than the API's 10 minutes
   */
  Minted mint(String namespace, String serviceAccount, Long requestedSeconds) {
    Duration lifetime = requestedSeconds == null ? DEFAULT_EXPIRATION : Duration.ofSeconds(requestedSeconds);
    if (lifetime.compareTo(MIN_EXPIRATION) < 0) {
      throw new IllegalArgumentException("spec.expirationSeconds: Invalid value: " + lifetime.toSeconds()
          + ": may not specify a duration less than 10 minutes");
    }
    Duration max = maxExpiration;
    if (max != null && lifetime.compareTo(max) > 0) {
      lifetime = max;
    }
    byte[] secret = new byte[24];
    random.nextBytes(secret);
    String token = PREFIX + HexFormat.of().formatHex(secret);
    Instant expiresAt = clock.instant().plus(lifetime);
    issued.put(token, new Issued(namespace, serviceAccount, expiresAt));
    return new Minted(token, expiresAt, lifetime.toSeconds());
  }

  /**
   * Null when the request may go on; otherwise why it is refused (401). Only this issuer's tokens are checked.
   *
   * @param authorization the request's {@code Authorization} header, or null
   */
  String refusal(String authorization) {
    if (authorization == null || !authorization.startsWith("Bearer " + PREFIX)) {
      return null;
    }
    Issued token = issued.get(authorization.substring("Bearer ".length()).trim());
    if (token == null) {
      refused.incrementAndGet();
      return "Unauthorized: unknown service account token";
    }
    if (!clock.instant().isBefore(token.expiresAt())) {
      refused.incrementAndGet();
      return "Unauthorized: service account token of " + token.namespace() + "/" + token.serviceAccount()
          + " expired at " + token.expiresAt();
    }
    return null;
  }

}
