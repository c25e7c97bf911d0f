package io.gshare.api.security;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Token settings ({@code gshare.security.*}).
 *
 * @param issuer the {@code iss} of every token the control plane signs and accepts
 * @param keyDir holds the signing key sets ({@code user-signing.jwks.json}, {@code internal-signing.jwks.json});
 *     a mounted Secret in production, the data directory in dev
 * @param generateMissingKeys create a key set that does not exist yet (off when keys come from a Secret)
 * @param internalTokenTtl lifetime of operator tokens ({@code operator:<clusterId>}), 7 days as the guide says
 * @param userTokenTtl default lifetime of user API tokens
 * @param maxUserTokenTtl the longest lifetime an admin may give a user token
 * @param clockSkew tolerance on {@code exp}/{@code iat} between hosts
 * @param sessionCookie the cookie that carries a user token to session URLs
 */
@ConfigurationProperties(prefix = "gshare.security", ignoreUnknownFields = false)
public record SecurityProperties(
    @DefaultValue("gshare") String issuer,
    Path keyDir,
    @DefaultValue("true") boolean generateMissingKeys,
    @DefaultValue("7d") Duration internalTokenTtl,
    @DefaultValue("30d") Duration userTokenTtl,
    @DefaultValue("365d") Duration maxUserTokenTtl,
    @DefaultValue("60s") Duration clockSkew,
    @DefaultValue("gshare_token") String sessionCookie) {

  public SecurityProperties {
    if (keyDir == null) {
      throw new IllegalArgumentException(
          "gshare.security.key-dir (GSHARE_SECURITY_KEY_DIR) must name the directory of the signing keys");
    }
  }
}
