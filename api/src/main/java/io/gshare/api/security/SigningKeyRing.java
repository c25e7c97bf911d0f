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
import io.gshare.api.support.SecretFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.UUID;

/**
 * The RS256 key pairs that sign one kind of token, kept as a JWK set file. The first key signs; a
 * rotated-out key stays (marked with an expiry) until every token it signed has expired, so both
 * verify during the overlap. The file is re-read when it changes, so a rotated Secret takes effect
 * without a restart.
 */
public final class SigningKeyRing {

  private static final Duration RELOAD_CHECK = Duration.ofSeconds(5);

  private final Path file;
  private final String purpose;
  private final Duration retention;
  private final Clock clock;
  private volatile JWKSet keys;
  private volatile FileTime loadedAt;
  private volatile Instant checkedAt = Instant.EPOCH;

  private SigningKeyRing(Path file, String purpose, Duration retention, Clock clock) {
    this.file = file;
    this.purpose = purpose;
    this.retention = retention;
    this.clock = clock;
  }

  /**
   * @param retention how long a rotated-out key keeps verifying: the longest token lifetime plus skew
   * @param generateIfMissing create a first key when the file does not exist
   */
  public static SigningKeyRing open(Path file, String purpose, Duration retention, boolean generateIfMissing, Clock clock) {
    SigningKeyRing ring = new SigningKeyRing(file, purpose, retention, clock);
    if (!Files.exists(file)) {
      if (!generateIfMissing) {
        throw new IllegalStateException("no " + purpose + " signing keys at " + file
            + " (mount the key Secret there, or enable gshare.security.generate-missing-keys)");
      }
      ring.write(new JWKSet(ring.newKey()));
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
        .orElseThrow(() -> new IllegalStateException("the " + purpose + " key set at " + file + " has no current key"));
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

  /** Verification keys for nimbus processors; always the current file's keys. */
  public JWKSource<SecurityContext> verificationKeys() {
    return (selector, context) -> selector.select(publicKeys());
  }

  /**
   * Makes a new signing key; the previous one keeps verifying for {@code retention}, and keys whose
   * retention is over are dropped.
   */
  public synchronized RSAKey rotate() {
    reload();
    Instant now = clock.instant();
    List<JWK> next = new ArrayList<>();
    RSAKey fresh = newKey();
    next.add(fresh);
    for (JWK key : keys.getKeys()) {
      if (key.getExpirationTime() == null) {
        next.add(new RSAKey.Builder((RSAKey) key).expirationTime(Date.from(now.plus(retention))).build());
      } else if (key.getExpirationTime().toInstant().isAfter(now)) {
        next.add(key);
      }
    }
    write(new JWKSet(next));
    reload();
    return fresh;
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
      if (!Files.getLastModifiedTime(file).equals(loadedAt)) {
        reload();
      }
    } catch (IOException e) {
      // Keep serving the keys already loaded; a Secret being swapped can vanish for a moment.
    }
  }

  private synchronized void reload() {
    try {
      FileTime modified = Files.getLastModifiedTime(file);
      JWKSet loaded = JWKSet.load(file.toFile());
      for (JWK key : loaded.getKeys()) {
        if (!(key instanceof RSAKey rsa) || !rsa.isPrivate() || key.getKeyID() == null) {
          throw new IllegalStateException(file + " must hold RSA private keys with a kid");
        }
      }
      keys = loaded;
      loadedAt = modified;
    } catch (IOException e) {
      throw new UncheckedIOException("could not read the " + purpose + " keys at " + file, e);
    } catch (ParseException e) {
      throw new IllegalStateException(file + " is not a JWK set: " + e.getMessage(), e);
    }
  }

  /** Atomic and owner-only: a reader never sees half a key set. */
  private void write(JWKSet set) {
    SecretFiles.write(file, set.toString(false));
  }
}
