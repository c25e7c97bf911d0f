package io.gshare.api.security;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.SecurityContext;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.UUID;

/**
 * The RS256 key pairs that sign one kind of token, kept as a JWK set in a {@link KeySetStore}. The first key signs; a
 * rotated-out key stays (marked with an expiry) until every token it signed has expired, so both verify during the
 * overlap. The store is checked for a newer version every few seconds, and at once when a token names a key this
 * process does not know: a rotation made by another replica (or a rotated Secret) takes effect without a restart.
 */
public final class SigningKeyRing {

  private static final Duration RELOAD_CHECK = Duration.ofSeconds(5);
  /** An unknown {@code kid} reloads at most this often: a flood of forged kids must not become a flood of reads. */
  private static final Duration FORCED_RELOAD_SPACING = Duration.ofSeconds(1);
  private static final int ROTATION_ATTEMPTS = 5;

  private final KeySetStore store;
  private final String purpose;
  private final Duration retention;
  private final Clock clock;
  private volatile JWKSet keys;
  private volatile long loadedVersion;
  private volatile Instant checkedAt = Instant.EPOCH;
  private volatile Instant forcedAt = Instant.EPOCH;

  private SigningKeyRing(KeySetStore store, String purpose, Duration retention, Clock clock) {
    this.store = store;
    this.purpose = purpose;
    this.retention = retention;
    this.clock = clock;
  }

  /** A key set kept in a file (the dev runtime, the commands, a single replica). */
  public static SigningKeyRing open(Path file, String purpose, Duration retention, boolean generateIfMissing, Clock clock) {
    return open(new FileKeySetStore(file), purpose, retention, generateIfMissing, clock);
  }

  /**
   * @param retention how long a rotated-out key keeps verifying: the longest token lifetime plus skew
   * @param generateIfMissing create a first key when the store has none (and offers no {@link KeySetStore#seed()})
   */
  public static SigningKeyRing open(KeySetStore store, String purpose, Duration retention, boolean generateIfMissing,
      Clock clock) {
    SigningKeyRing ring = new SigningKeyRing(store, purpose, retention, clock);
    if (store.load().isEmpty()) {
      String first = store.seed().orElse(null);
      if (first == null) {
        if (!generateIfMissing) {
          throw new IllegalStateException("no " + purpose + " signing keys in " + store.describe()
              + " (mount the key Secret there, or enable gshare.security.generate-missing-keys)");
        }
        first = new JWKSet(ring.newKey()).toString(false);
      }
      // false: another replica stored its set first, and that one is read below
      store.create(first);
    }
    ring.reload();
    return ring;
  }

  /** The key that signs new tokens. */
  public RSAKey signingKey() {
    reloadIfChanged();
    return (RSAKey) keys.getKeys().stream()
        .filter(k -> k.getExpirationTime() == null)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("the " + purpose + " key set in " + store.describe()
            + " has no current key"));
  }

  /** Public halves of every key still valid for verification, as published in a JWKS document. */
  public JWKSet publicKeys() {
    reloadIfChanged();
    Instant now = clock.instant();
    List<JWK> live = keys.getKeys().stream()
        .filter(k -> k.getExpirationTime() == null || k.getExpirationTime().toInstant().isAfter(now))
        .map(JWK::toPublicJWK)
        .toList();
    return new JWKSet(live);
  }

  /**
   * Verification keys for nimbus processors; always the store's current keys. A token signed by a key this process
   * has not seen yet (another replica just rotated) makes it read the store again before it refuses.
   */
  public JWKSource<SecurityContext> verificationKeys() {
    return (selector, context) -> {
      List<JWK> found = selector.select(publicKeys());
      if (found.isEmpty() && reloadForUnknownKey()) {
        found = selector.select(publicKeys());
      }
      return found;
    };
  }

  /**
   * Makes a new signing key; the previous one keeps verifying for {@code retention}, and keys whose
   * retention is over are dropped. Written only over the version it was built from: when another replica rotated
   * meanwhile, the rotation is rebuilt on that newer set.
   */
  public synchronized RSAKey rotate() {
    for (int attempt = 1; ; attempt++) {
      KeySetStore.Versioned current = store.load()
          .orElseThrow(() -> new IllegalStateException("no " + purpose + " key set in " + store.describe()));
      Instant now = clock.instant();
      List<JWK> next = new ArrayList<>();
      RSAKey fresh = newKey();
      next.add(fresh);
      for (JWK key : parse(current.jwks()).getKeys()) {
        if (key.getExpirationTime() == null) {
          next.add(new RSAKey.Builder((RSAKey) key).expirationTime(Date.from(now.plus(retention))).build());
        } else if (key.getExpirationTime().toInstant().isAfter(now)) {
          next.add(key);
        }
      }
      if (store.replace(current.version(), new JWKSet(next).toString(false))) {
        reload();
        return fresh;
      }
      if (attempt == ROTATION_ATTEMPTS) {
        throw new IllegalStateException("the " + purpose + " key set in " + store.describe()
            + " changed under each of " + ROTATION_ATTEMPTS + " rotation attempts");
      }
    }
  }

  private RSAKey newKey() {
    try {
      return new RSAKeyGenerator(2048)
          .keyUse(KeyUse.SIGNATURE)
          .algorithm(JWSAlgorithm.RS256)
          .keyID(purpose + "-" + UUID.randomUUID())
          .issueTime(Date.from(clock.instant()))
          .generate();
    } catch (JOSEException e) {
      throw new IllegalStateException("could not generate an RSA key", e);
    }
  }

  private void reloadIfChanged() {
    Instant now = clock.instant();
    if (now.isBefore(checkedAt.plus(RELOAD_CHECK))) {
      return;
    }
    checkedAt = now;
    try {
      if (store.version().filter(v -> v != loadedVersion).isPresent()) {
        reload();
      }
    } catch (RuntimeException e) {
      // Keep serving the keys already loaded: a Secret being swapped can vanish for a moment, a database restart
      // must not stop every token from verifying.
    }
  }

  private boolean reloadForUnknownKey() {
    Instant now = clock.instant();
    if (now.isBefore(forcedAt.plus(FORCED_RELOAD_SPACING))) {
      return false;
    }
    forcedAt = now;
    try {
      long before = loadedVersion;
      reload();
      return loadedVersion != before;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private synchronized void reload() {
    KeySetStore.Versioned stored = store.load()
        .orElseThrow(() -> new IllegalStateException("no " + purpose + " key set in " + store.describe()));
    JWKSet loaded = parse(stored.jwks());
    for (JWK key : loaded.getKeys()) {
      if (!(key instanceof RSAKey rsa) || !rsa.isPrivate() || key.getKeyID() == null) {
        throw new IllegalStateException(store.describe() + " must hold RSA private keys with a kid");
      }
    }
    keys = loaded;
    loadedVersion = stored.version();
  }

  private JWKSet parse(String jwks) {
    try {
      return JWKSet.parse(jwks);
    } catch (ParseException e) {
      throw new IllegalStateException(store.describe() + " is not a JWK set: " + e.getMessage(), e);
    }
  }
}
