package io.gshare.dev;

import java.net.InetAddress;
import java.net.UnknownHostException;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.OAuth2Config;

/**
 * The dev runtime's OpenID Connect provider: NAV's mock-oauth2-server, a real provider (discovery, authorization code
 * flow, signed ID tokens) whose login page takes any user name and the claims to put in the ID token. The api signs
 * browsers in through it exactly as through an organisation's Keycloak or Entra ID; nothing about it is gShare's.
 */
final class EmbeddedOidcProvider implements AutoCloseable {

  /** The issuer path: the provider serves one issuer per first path segment. */
  static final String ISSUER_ID = "gshare";
  static final String CLIENT_ID = "gshare-console";
  /** Any secret: the mock accepts every client; a real provider issues one. */
  static final String CLIENT_SECRET = "dev-only-secret";
  /** The claim the dev runtime maps roles from, and the values that make an admin and a super admin. */
  static final String ROLE_CLAIM = "gshare_roles";
  static final String ADMIN_VALUE = "gshare-admins";
  static final String SUPER_ADMIN_VALUE = "gshare-superadmins";

  private final MockOAuth2Server server;
  private final String issuer;

  private EmbeddedOidcProvider(MockOAuth2Server server, String issuer) {
    this.server = server;
    this.issuer = issuer;
  }

  static EmbeddedOidcProvider start(int port) {
    // interactiveLogin: a login page in the browser, where the user types a name and claims.
    MockOAuth2Server server = new MockOAuth2Server(new OAuth2Config(true));
    try {
      server.start(InetAddress.getByName("127.0.0.1"), port);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
    return new EmbeddedOidcProvider(server, server.issuerUrl(ISSUER_ID).toString().replaceAll("/$", ""));
  }

  String issuer() {
    return issuer;
  }

  @Override
  public void close() {
    server.shutdown();
  }
}
