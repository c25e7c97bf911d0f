package io.gshare.api.security;

import java.util.Collection;
import java.util.List;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.oauth2.jwt.Jwt;

/**
 * An authenticated request: its {@link Caller} is the principal, the verified token the credentials.
 * A user's authority is {@code ROLE_<role>} (the hierarchy in {@link WebSecurityConfig} adds the roles
 * below it); an operator's is {@code ROLE_OPERATOR}.
 */
final class CallerAuthentication extends AbstractAuthenticationToken {

  static final String OPERATOR_AUTHORITY = "ROLE_OPERATOR";

  private final Caller caller;
  private final Jwt token;

  CallerAuthentication(Caller caller, Jwt token) {
    super(authoritiesOf(caller));
    this.caller = caller;
    this.token = token;
    setAuthenticated(true);
  }

  private static Collection<? extends GrantedAuthority> authoritiesOf(Caller caller) {
    return List.of(new SimpleGrantedAuthority(
        caller instanceof Caller.User user ? "ROLE_" + user.role().name() : OPERATOR_AUTHORITY));
  }

  @Override
  public Caller getPrincipal() {
    return caller;
  }

  @Override
  public Jwt getCredentials() {
    return token;
  }

  @Override
  public String getName() {
    return caller.actor();
  }
}
