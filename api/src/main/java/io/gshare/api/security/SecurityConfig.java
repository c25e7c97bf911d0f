package io.gshare.api.security;

import io.gshare.api.security.SecurityProperties.KeyStoreKind;
import io.gshare.core.keys.SigningKeySets;
import java.time.Clock;
import java.util.EnumMap;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The token machinery every mode needs (the web app, the worker alone, the commands). */
@Configuration(proxyBeanMethods = false)
class SecurityConfig {

  @Bean
  DataKey dataKey(SecurityProperties properties) {
    return DataKey.open(properties.keyDir(), properties.generateMissingKeys());
  }

  @Bean
  Tokens tokens(SecurityProperties properties, DataKey dataKey, ObjectProvider<SigningKeySets> keySets) {
    Clock clock = Clock.systemUTC();
    Map<TokenKind, SigningKeyRing> rings = new EnumMap<>(TokenKind.class);
    for (TokenKind kind : TokenKind.values()) {
      var retention = (kind == TokenKind.USER ? properties.maxUserTokenTtl() : properties.internalTokenTtl())
          .plus(properties.clockSkew());
      var file = properties.keyDir().resolve(kind.keySetFile());
      rings.put(kind, properties.keyStore() == KeyStoreKind.DATABASE
          ? SigningKeyRing.open(new DatabaseKeySetStore(keySets.getObject(), dataKey, kind.keySetName(), file),
              kind.keySetName(), retention, true, clock)
          : SigningKeyRing.open(file, kind.keySetName(), retention, properties.generateMissingKeys(), clock));
    }
    return new Tokens(properties.issuer(), rings, properties.clockSkew(), clock);
  }
}
