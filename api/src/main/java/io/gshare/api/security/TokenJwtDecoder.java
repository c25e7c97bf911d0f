package io.gshare.api.security;

import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.text.ParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;

/**
 * The resource server's decoder for one {@link TokenKind}: verification is {@link Tokens}' nimbus
 * processor (RS256 only, {@code typ}, {@code iss}, {@code aud}, {@code exp} with skew, required
 * claims), so a rejected token keeps the reason gShare has always given ("token expired", ...).
 */
final class TokenJwtDecoder implements JwtDecoder {

  private final Tokens tokens;
  private final TokenKind kind;

  TokenJwtDecoder(Tokens tokens, TokenKind kind) {
    this.tokens = tokens;
    this.kind = kind;
  }

  @Override
  public Jwt decode(String token) {
    JWTClaimsSet claims;
    Map<String, Object> headers;
    try {
      claims = tokens.claims(kind, token);
      headers = new LinkedHashMap<>(SignedJWT.parse(token).getHeader().toJSONObject());
    } catch (InvalidTokenException e) {
      throw new BadJwtException(e.getMessage(), e);
    } catch (ParseException e) {
      throw new BadJwtException("malformed token", e);
    }
    Map<String, Object> values = new LinkedHashMap<>(claims.getClaims());
    // Spring's Jwt wants instants where nimbus gives dates.
    values.put("iat", claims.getIssueTime().toInstant());
    values.put("exp", claims.getExpirationTime().toInstant());
    return Jwt.withTokenValue(token).headers(h -> h.putAll(headers)).claims(c -> c.putAll(values)).build();
  }
}
