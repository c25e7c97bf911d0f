package io.gshare.api.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Date;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The token matrix: every kind of bad token is refused, and the two kinds never pass for each other. */
class TokensTest {

  @TempDir Path keyDir;
  private MutableClock clock;
  private Tokens tokens;
  private Map<TokenKind, SigningKeyRing> rings;

  @BeforeEach
  void setUp() {
    clock = new MutableClock(Instant.parse("2026-12-02T10:00:00Z"));
    rings = openRings(keyDir);
    tokens = new Tokens("gshare", rings, Duration.ofSeconds(60), clock);
  }

  private Map<TokenKind, SigningKeyRing> openRings(Path dir) {
    Map<TokenKind, SigningKeyRing> result = new EnumMap<>(TokenKind.class);
    result.put(TokenKind.USER, SigningKeyRing.open(dir.resolve("user.jwks.json"), "user", Duration.ofDays(31), true, clock));
    result.put(TokenKind.INTERNAL, SigningKeyRing.open(dir.resolve("internal.jwks.json"), "internal", Duration.ofDays(7).plusSeconds(60), true, clock));
    return result;
  }

  @Test
  void aGoodTokenOfEachKindVerifiesAsThatKindOnly() throws Exception {
    String user = tokens.sign(TokenKind.USER, "usr_1", "tok_1", Duration.ofHours(1));
    String operator = tokens.sign(TokenKind.INTERNAL, "operator:clu_a", null, Duration.ofDays(7));

    assertThat(tokens.verify(TokenKind.USER, user).subject()).isEqualTo("usr_1");
    assertThat(tokens.verify(TokenKind.USER, user).tokenId()).isEqualTo("tok_1");
    assertThat(tokens.verify(TokenKind.INTERNAL, operator).subject()).isEqualTo("operator:clu_a");

    assertThatThrownBy(() -> tokens.verify(TokenKind.INTERNAL, user)).isInstanceOf(InvalidTokenException.class);
    assertThatThrownBy(() -> tokens.verify(TokenKind.USER, operator)).isInstanceOf(InvalidTokenException.class);
  }

  @Test
  void aTamperedPayloadFailsTheSignature() {
    String token = tokens.sign(TokenKind.INTERNAL, "operator:clu_a", null, Duration.ofHours(1));
    String[] parts = token.split("\\.");
    String forged = parts[0] + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(
        new String(Base64.getUrlDecoder().decode(parts[1])).replace("clu_a", "clu_b").getBytes()) + "." + parts[2];

    assertThatThrownBy(() -> tokens.verify(TokenKind.INTERNAL, forged)).isInstanceOf(InvalidTokenException.class)
        .hasMessageContaining("rejected");
  }

  @Test
  void aKeyFromElsewhereIsAnUnknownKid(@TempDir Path otherDir) {
    Tokens impostor = new Tokens("gshare", openRings(otherDir), Duration.ofSeconds(60), clock);
    String token = impostor.sign(TokenKind.INTERNAL, "operator:clu_a", null, Duration.ofHours(1));

    assertThatThrownBy(() -> tokens.verify(TokenKind.INTERNAL, token)).isInstanceOf(InvalidTokenException.class);
  }

  @Test
  void algNoneIsRefused() {
    String none = new PlainJWT(claims("operator:clu_a", TokenKind.INTERNAL.audience(), Instant.now().plusSeconds(600))).serialize();
    assertThatThrownBy(() -> tokens.verify(TokenKind.INTERNAL, none)).isInstanceOf(InvalidTokenException.class);
  }

  @Test
  void hs256SignedWithThePublicKeyIsRefused() throws Exception {
    RSAKey current = rings.get(TokenKind.INTERNAL).signingKey();
    // The classic key-confusion attack: the public key's bytes used as an HMAC secret.
    byte[] publicBytes = current.toRSAPublicKey().getEncoded();
    SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).type(TokenKind.INTERNAL.type())
        .keyID(current.getKeyID()).build(), claims("operator:clu_a", TokenKind.INTERNAL.audience(), clock.instant().plusSeconds(600)));
    jwt.sign(new MACSigner(publicBytes));

    assertThatThrownBy(() -> tokens.verify(TokenKind.INTERNAL, jwt.serialize())).isInstanceOf(InvalidTokenException.class);
  }

  @Test
  void aWrongAudienceOrTypeIsRefusedEvenWithTheRightKey() throws Exception {
    RSAKey key = rings.get(TokenKind.INTERNAL).signingKey();
    String wrongAudience = signWith(key, TokenKind.INTERNAL.type(), claims("operator:clu_a", "gshare-api", clock.instant().plusSeconds(600)));
    String plainJwtType = signWith(key, JOSEObjectType.JWT, claims("operator:clu_a", TokenKind.INTERNAL.audience(), clock.instant().plusSeconds(600)));
    String noJti = signWith(key, TokenKind.INTERNAL.type(), new JWTClaimsSet.Builder().issuer("gshare")
        .audience(TokenKind.INTERNAL.audience()).subject("operator:clu_a").issueTime(Date.from(clock.instant()))
        .expirationTime(Date.from(clock.instant().plusSeconds(600))).build());
    String otherIssuer = signWith(key, TokenKind.INTERNAL.type(), new JWTClaimsSet.Builder(
        claims("operator:clu_a", TokenKind.INTERNAL.audience(), clock.instant().plusSeconds(600))).issuer("someone-else").build());

    for (String bad : new String[] {wrongAudience, plainJwtType, noJti, otherIssuer}) {
      assertThatThrownBy(() -> tokens.verify(TokenKind.INTERNAL, bad)).isInstanceOf(InvalidTokenException.class);
    }
  }

  @Test
  void anExpiredTokenIsRefusedPastTheSkew() throws Exception {
    String token = tokens.sign(TokenKind.INTERNAL, "operator:clu_a", null, Duration.ofDays(7));
    clock.advance(Duration.ofDays(7).plusSeconds(30));
    assertThat(tokens.verify(TokenKind.INTERNAL, token).subject()).isEqualTo("operator:clu_a"); // within the 60 s skew
    clock.advance(Duration.ofSeconds(60));
    assertThatThrownBy(() -> tokens.verify(TokenKind.INTERNAL, token)).isInstanceOf(InvalidTokenException.class)
        .hasMessage("token expired");
  }

  @Test
  void garbageIsMalformed() {
    assertThatThrownBy(() -> tokens.verify(TokenKind.USER, "not.a.jwt")).isInstanceOf(InvalidTokenException.class);
    assertThatThrownBy(() -> tokens.verify(TokenKind.USER, "")).hasMessage("no token");
  }

  @Test
  void rotationKeepsTheOldKeyVerifyingUntilItsTokensExpire() throws Exception {
    String before = tokens.sign(TokenKind.INTERNAL, "operator:clu_a", null, Duration.ofDays(7));
    String oldKid = SignedJWT.parse(before).getHeader().getKeyID();

    RSAKey fresh = tokens.rotate(TokenKind.INTERNAL);
    String after = tokens.sign(TokenKind.INTERNAL, "operator:clu_a", null, Duration.ofDays(7));

    assertThat(SignedJWT.parse(after).getHeader().getKeyID()).isEqualTo(fresh.getKeyID()).isNotEqualTo(oldKid);
    assertThat(tokens.verify(TokenKind.INTERNAL, before).subject()).isEqualTo("operator:clu_a");
    assertThat(tokens.verify(TokenKind.INTERNAL, after).subject()).isEqualTo("operator:clu_a");
    assertThat(tokens.publicKeys(TokenKind.INTERNAL).getKeys()).extracting(k -> k.getKeyID())
        .containsExactly(fresh.getKeyID(), oldKid);
    assertThat(tokens.publicKeys(TokenKind.INTERNAL).getKeys()).allSatisfy(k -> assertThat(k.isPrivate()).isFalse());

    clock.advance(Duration.ofDays(7).plusSeconds(61));
    assertThat(tokens.publicKeys(TokenKind.INTERNAL).getKeys()).extracting(k -> k.getKeyID()).containsExactly(fresh.getKeyID());
  }

  @Test
  void anotherProcessRotatingTheKeyFileIsPickedUpWithoutRestart() throws Exception {
    Tokens otherReplica = new Tokens("gshare", openRings(keyDir), Duration.ofSeconds(60), clock);
    RSAKey fresh = otherReplica.rotate(TokenKind.INTERNAL);
    String fromOther = otherReplica.sign(TokenKind.INTERNAL, "operator:clu_a", null, Duration.ofHours(1));

    clock.advance(Duration.ofSeconds(6)); // past the reload check interval
    Files.setLastModifiedTime(keyDir.resolve("internal.jwks.json"),
        FileTime.from(Instant.now().plusSeconds(5)));
    assertThat(tokens.verify(TokenKind.INTERNAL, fromOther).subject()).isEqualTo("operator:clu_a");
    assertThat(rings.get(TokenKind.INTERNAL).signingKey().getKeyID()).isEqualTo(fresh.getKeyID());
  }

  private JWTClaimsSet claims(String subject, String audience, Instant expires) {
    return new JWTClaimsSet.Builder().issuer("gshare").audience(audience).subject(subject)
        .jwtID("jti-1").issueTime(Date.from(clock.instant())).expirationTime(Date.from(expires)).build();
  }

  private static String signWith(RSAKey key, JOSEObjectType type, JWTClaimsSet claims) throws Exception {
    SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).type(type).keyID(key.getKeyID()).build(), claims);
    jwt.sign(new RSASSASigner(key));
    return jwt.serialize();
  }

  static final class MutableClock extends Clock {
    private Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
