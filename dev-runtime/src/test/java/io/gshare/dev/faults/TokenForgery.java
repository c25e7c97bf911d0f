package io.gshare.dev.faults;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Tokens with one flaw each, made from a real token of the kind: its claims and header re-signed with the api's own
 * key (read from the key set file, as an attacker who stole nothing could not), then changed in one place, so the
 * flaw alone is what the api must refuse.
 */
final class TokenForgery {

  private final JWTClaimsSet claims;
  private final JWSHeader header;
  private final RSAKey key;

  private TokenForgery(JWTClaimsSet claims, JWSHeader header, RSAKey key) {
    this.claims = claims;
    this.header = header;
    this.key = key;
  }

  static TokenForgery of(String realToken, Path keySet) throws Exception {
    SignedJWT real = SignedJWT.parse(realToken);
    RSAKey key = JWKSet.load(keySet.toFile()).getKeyByKeyId(real.getHeader().getKeyID()).toRSAKey();
    return new TokenForgery(real.getJWTClaimsSet(), real.getHeader(), key);
  }

  /** The real token's header and claims, re-signed unchanged: it must work. */
  String resigned() throws Exception {
    return sign(header, claims, key);
  }

  /** One token per flaw, by name. */
  Map<String, String> flawed() throws Exception {
    Instant now = Instant.now();
    Map<String, String> tokens = new LinkedHashMap<>();
    tokens.put("alg none", new PlainJWT(claims).serialize());
    SignedJWT hmac = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).type(header.getType())
        .keyID(header.getKeyID()).build(), claims);
    hmac.sign(new MACSigner(key.toRSAPublicKey().getEncoded()));
    tokens.put("HS256 keyed with the public key", hmac.serialize());
    RSAKey stranger = new RSAKeyGenerator(2048).keyID("unknown-kid").generate();
    tokens.put("unknown kid", sign(new JWSHeader.Builder(header).keyID("unknown-kid").build(), claims, stranger));
    tokens.put("known kid, another key", sign(header, claims, new RSAKeyGenerator(2048).keyID(key.getKeyID()).generate()));
    tokens.put("wrong aud", sign(header, change(c -> c.audience("someone-else")), key));
    tokens.put("wrong iss", sign(header, change(c -> c.issuer("https://issuer.example.com")), key));
    tokens.put("wrong typ", sign(new JWSHeader.Builder(header).type(JOSEObjectType.JWT).build(), claims, key));
    tokens.put("expired", sign(header, change(c -> c.issueTime(Date.from(now.minusSeconds(7200)))
        .expirationTime(Date.from(now.minusSeconds(3600)))), key));
    tokens.put("not yet valid", sign(header, change(c -> c.notBeforeTime(Date.from(now.plusSeconds(3600)))
        .issueTime(Date.from(now.plusSeconds(3600))).expirationTime(Date.from(now.plusSeconds(7200)))), key));
    tokens.put("no subject", sign(header, change(c -> c.subject(null)), key));
    return tokens;
  }

  private JWTClaimsSet change(UnaryOperator<JWTClaimsSet.Builder> edit) {
    return edit.apply(new JWTClaimsSet.Builder(claims)).build();
  }

  private static String sign(JWSHeader header, JWTClaimsSet claims, RSAKey key) throws Exception {
    SignedJWT jwt = new SignedJWT(header, claims);
    jwt.sign(new RSASSASigner(key));
    return jwt.serialize();
  }
}
