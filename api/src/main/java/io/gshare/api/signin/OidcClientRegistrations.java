package io.gshare.api.signin;

import io.gshare.api.security.OidcProperties;
import org.springframework.security.oauth2.client.registration.ClientRegistration;
import org.springframework.security.oauth2.client.registration.ClientRegistrationRepository;
import org.springframework.security.oauth2.client.registration.ClientRegistrations;
import org.springframework.stereotype.Component;

/**
 * The one client registration, {@value #REGISTRATION_ID}, from the provider's discovery document, read at the first
 * sign-in rather than at startup: an identity provider that is down must not keep the api (and API tokens) from
 * starting. A failed read is tried again at the next sign-in.
 */
@Component
public class OidcClientRegistrations implements ClientRegistrationRepository {

  public static final String REGISTRATION_ID = "gshare";

  private final OidcProperties oidc;
  private volatile ClientRegistration registration;

  OidcClientRegistrations(OidcProperties oidc) {
    this.oidc = oidc;
  }

  @Override
  public ClientRegistration findByRegistrationId(String registrationId) {
    if (!REGISTRATION_ID.equals(registrationId) || !oidc.enabled()) {
      return null;
    }
    ClientRegistration known = registration;
    if (known == null) {
      synchronized (this) {
        if (registration == null) {
          registration = ClientRegistrations.fromIssuerLocation(oidc.issuerUri())
              .registrationId(REGISTRATION_ID)
              .clientId(oidc.clientId())
              .clientSecret(oidc.clientSecret())
              .scope(oidc.scopes())
              .redirectUri("{baseUrl}/login/oauth2/code/{registrationId}")
              .build();
        }
        known = registration;
      }
    }
    return known;
  }
}
