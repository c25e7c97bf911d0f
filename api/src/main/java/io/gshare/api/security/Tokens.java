package io.gshare.api.security;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Signs and verifies gShare's tokens with nimbus-jose-jwt. Verification allows RS256 only, checks
 * {@code typ}, {@code iss}, {@code aud}, {@code exp} (with skew) and requires {@code sub},
 * {@code iat}, {@code jti}; anything else is an {@link InvalidTokenException}.
 */
public final class Tokens {

  /** A verified token's claims gShare uses. */
  public record Verified(String subject, String tokenId, Instant issuedAt, Instant expiresAt) {}

  private final String issuer;
  private final Clock clock;
  private final Map<TokenKind, SigningKeyRing> rings = new EnumMap<>(TokenKind.class);
  private final Map<TokenKind, DefaultJWTProcessor<SecurityContext>> processors = new EnumMap<>(TokenKind.class);

  public Tokens(String issuer, Map<TokenKind, SigningKeyRing> rings, Duration clockSkew, Clock clock) {
    this.issuer = issuer;
    this.clock = clock;
    this.rings.putAll(rings);
    for (TokenKind kind : TokenKind.values()) {
      DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
      processor.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(kind.type()));
      processor.setJWSKeySelector(new JWSVerificationKeySelector<>(JWSAlgorithm.RS256, rings.get(kind).verificationKeys()));
      DefaultJWTClaimsVerifier<SecurityContext> claims = new DefaultJWTClaimsVerifier<>(
          Set.of(kind.audience()),
          new JWTClaimsSet.Builder().issuer(issuer).build(),
          Set.of("sub", "iat", "exp", "jti"),
          null) {
        @Override
        protected Date currentTime() {
          return Date.from(Tokens.this.clock.instant());
        }
      };
      claims.setMaxClockSkew((int) clockSkew.toSeconds());
      processor.setJWTClaimsSetVerifier(claims);
      processors.put(kind, processor);
    }
  }

  /** A token just signed with the claims the control plane records of it. */
  public record Signed(String token, String tokenId, Instant issuedAt, Instant expiresAt) {}

  public String sign(TokenKind kind, String subject, String tokenId, Duration ttl) {
    return signed(kind, subject, tokenId, ttl).token();
  }

  /** Signs a token and says its id and lifetime (second precision, as in the token). */
  public Signed signed(TokenKind kind, String subject, String tokenId, Duration ttl) {
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("a token's lifetime must be positive, got " + ttl);
    }
    RSAKey key = rings.get(kind).signingKey();
    Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    String jti = tokenId == null ? UUID.randomUUID().toString() : tokenId;
    JWTClaimsSet claims = new JWTClaimsSet.Builder()
        .issuer(issuer)
        .audience(kind.audience())
        .subject(subject)
        .jwtID(jti)
        .issueTime(Date.from(now))
        .expirationTime(Date.from(now.plus(ttl)))
        .build();
    SignedJWT jwt = new SignedJWT(
        new JWSHeader.Builder(JWSAlgorithm.RS256).type(kind.type()).keyID(key.getKeyID()).build(), claims);
    try {
      jwt.sign(new RSASSASigner(key));
    } catch (JOSEException e) {
      throw new IllegalStateException("could not sign a " + kind + " token", e);
    }
    return new Signed(jwt.serialize(), jti, now, now.plus(ttl));
  }

  public Verified verify(TokenKind kind, String token) throws InvalidTokenException {
    JWTClaimsSet claims = claims(kind, token);
    return new Verified(claims.getSubject(), claims.getJWTID(), claims.getIssueTime().toInstant(),
        claims.getExpirationTime().toInstant());
  }

  /** The claims of a token of {@code kind} that passed every check, or why it did not. */
  public JWTClaimsSet claims(TokenKind kind, String token) throws InvalidTokenException {
    if (token == null || token.isBlank()) {
      throw new InvalidTokenException("no token");
    }
    try {
      return processors.get(kind).process(token, null);
    } catch (ParseException e) {
      throw new InvalidTokenException("malformed token");
    } catch (BadJWTException e) {
      throw new InvalidTokenException(e.getMessage().contains("xpired") ? "token expired" : "token rejected: " + e.getMessage());
    } catch (BadJOSEException e) {
      throw new InvalidTokenException("token rejected: " + e.getMessage());
    } catch (JOSEException e) {
      throw new InvalidTokenException("token could not be verified");
    }
  }

  public JWKSet publicKeys(TokenKind kind) {
    return rings.get(kind).publicKeys();
  }

  public RSAKey rotate(TokenKind kind) {
    return rings.get(kind).rotate();
  }
}
