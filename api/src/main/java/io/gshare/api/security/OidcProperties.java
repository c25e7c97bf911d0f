package io.gshare.api.security;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.time.Duration;
import java.util.List;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Browser sign-in with the organisation's OpenID Connect provider ({@code gshare.oidc.*}); off while
 * {@code issuer-uri} is empty (API tokens still work).
 *
 * @param issuerUri the provider's issuer; its {@code /.well-known/openid-configuration} is read at the first sign-in
 * @param clientId the client gShare is registered as at the provider
 * @param clientSecret its secret (a mounted Secret in production)
 * @param scopes asked for at sign-in; {@code openid} and {@code email} are needed
 * @param provisioning {@code auto}: a first sign-in creates the user; {@code precreated}: only users an admin
 *     created (by email) may sign in
 * @param roleClaim the claim that carries the user's groups or roles (a string or a list); empty: roles are
 *     managed in gShare only
 * @param adminValues values of {@code roleClaim} that make an admin
 * @param superAdminValues values of {@code roleClaim} that make a super admin
 * @param teamClaim the claim whose value is the user's team id; empty: teams are managed in gShare only
 * @param browserSessionTtl how long a browser's sign-in lasts (its token's lifetime)
 * @param secureCookies {@code auto}: Secure unless the request came over plain HTTP (the dev runtime)
 */
@Validated
@ConfigurationProperties(prefix = "gshare.oidc", ignoreUnknownFields = false)
public record OidcProperties(
    @Pattern(regexp = "(https?://\\S+)?", message = "must be an http(s) URL") String issuerUri,
    String clientId,
    String clientSecret,
    @DefaultValue({"openid", "email", "profile"}) List<String> scopes,
    @DefaultValue("auto") @NotNull Provisioning provisioning,
    @DefaultValue("") String roleClaim,
    @DefaultValue("") List<String> adminValues,
    @DefaultValue("") List<String> superAdminValues,
    @DefaultValue("") String teamClaim,
    @DefaultValue("8h") @NotNull @DurationMin(minutes = 5) Duration browserSessionTtl,
    @DefaultValue("auto") @Pattern(regexp = "auto|always|never") String secureCookies) {

  /** Who may sign in. */
  public enum Provisioning {
    AUTO,
    PRECREATED
  }

  public boolean enabled() {
    return issuerUri != null && !issuerUri.isBlank();
  }

  public OidcProperties {
    if (enabled() && (clientId == null || clientId.isBlank())) {
      throw new IllegalArgumentException("gshare.oidc.client-id must be set with gshare.oidc.issuer-uri");
    }
    adminValues = adminValues == null ? List.of() : adminValues.stream().filter(v -> !v.isBlank()).toList();
    superAdminValues = superAdminValues == null ? List.of()
        : superAdminValues.stream().filter(v -> !v.isBlank()).toList();
  }
}
