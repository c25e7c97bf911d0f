package io.gshare.api.security;

import java.time.Clock;
import java.util.EnumMap;
import java.util.Map;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The token machinery every mode needs (the web app, the worker alone, the commands). */
@Configuration(proxyBeanMethods = false)
class SecurityConfig {

  @Bean
  Tokens tokens(SecurityProperties properties) {
    Clock clock = Clock.systemUTC();
    Map<TokenKind, SigningKeyRing> rings = new EnumMap<>(TokenKind.class);
    rings.put(TokenKind.USER, SigningKeyRing.open(properties.keyDir().resolve(TokenKind.USER.keySetFile()),
        TokenKind.USER.keySetName(), properties.maxUserTokenTtl().plus(properties.clockSkew()),
        properties.generateMissingKeys(), clock));
    rings.put(TokenKind.INTERNAL, SigningKeyRing.open(properties.keyDir().resolve(TokenKind.INTERNAL.keySetFile()),
        TokenKind.INTERNAL.keySetName(), properties.internalTokenTtl().plus(properties.clockSkew()),
        properties.generateMissingKeys(), clock));
    return new Tokens(properties.issuer(), rings, properties.clockSkew(), clock);
  }
}
