package io.gshare.api.security;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.nio.file.Path;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Token settings ({@code gshare.security.*}).
 *
 * @param issuer the {@code iss} of every token the control plane signs and accepts
 * @param keyDir holds the signing key sets ({@code user-signing.jwks.json}, {@code internal-signing.jwks.json});
 *     a mounted Secret in production, the data directory in dev
 * @param keyStore where the signing key sets are kept: {@code file} (in the key directory: one process, the dev
 *     runtime) or {@code database} (PostgreSQL, sealed with the data key: what several api replicas share, and where a
 *     rotation by one is seen by all)
 * @param generateMissingKeys create a key file that does not exist yet (off when keys come from a Secret); the
 *     database store always creates its first sets
 * @param internalTokenTtl lifetime of operator tokens ({@code operator:<clusterId>}), 7 days as the guide says
 * @param userTokenTtl default lifetime of user API tokens
 * @param maxUserTokenTtl the longest lifetime an admin may give a user token
 * @param clockSkew tolerance on {@code exp}/{@code iat} between hosts
 * @param sessionCookie the cookie that carries a user token to session URLs
 */
@Validated
@ConfigurationProperties(prefix = "gshare.security", ignoreUnknownFields = false)
public record SecurityProperties(
    @DefaultValue("gshare") @NotBlank String issuer,
    Path keyDir,
    @DefaultValue("file") @NotNull KeyStoreKind keyStore,
    @DefaultValue("true") boolean generateMissingKeys,
    @DefaultValue("7d") @NotNull @DurationMin(seconds = 1) Duration internalTokenTtl,
    @DefaultValue("30d") @NotNull @DurationMin(seconds = 1) Duration userTokenTtl,
    @DefaultValue("365d") @NotNull @DurationMin(seconds = 1) Duration maxUserTokenTtl,
    @DefaultValue("60s") @NotNull @DurationMin(seconds = 0) Duration clockSkew,
    @DefaultValue("gshare_token") @Pattern(regexp = "[!#$%&'*+.^_`|~0-9A-Za-z-]+", message = "must be a cookie name")
        String sessionCookie) {

  /** Where the signing key sets are kept. */
  public enum KeyStoreKind {
    FILE,
    DATABASE
  }

  public SecurityProperties {
    if (keyDir == null) {
      throw new IllegalArgumentException(
          "gshare.security.key-dir (GSHARE_SECURITY_KEY_DIR) must name the directory of the signing keys");
    }
  }

  /** A default lifetime above the maximum would refuse every token asked for without one. */
  @AssertTrue(message = "user-token-ttl must not exceed max-user-token-ttl")
  boolean isUserTokenTtlWithinMax() {
    return userTokenTtl == null || maxUserTokenTtl == null || userTokenTtl.compareTo(maxUserTokenTtl) <= 0;
  }
}
