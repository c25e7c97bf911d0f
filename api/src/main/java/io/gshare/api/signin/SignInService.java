package io.gshare.api.signin;

import io.gshare.api.security.OidcProperties;
import io.gshare.api.user.UserService;
import io.gshare.core.audit.AuditLog;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.support.NewIds;
import io.gshare.core.user.Role;
import io.gshare.core.user.UserRepository;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A browser sign-in through the OpenID Connect provider: finds the user by the verified {@code email} claim, creates
 * it on first sign-in where provisioning is {@code auto}, maps role and team from the configured claims, and issues
 * the browser's token (a user token named {@code browser}: revocable and listed like any other).
 */
@Service
public class SignInService {

  static final String TOKEN_NAME = "browser";

  private final OidcProperties oidc;
  private final UserRepository users;
  private final UserService tokens;
  private final AuditLog audit;

  SignInService(OidcProperties oidc, UserRepository users, UserService tokens, AuditLog audit) {
    this.oidc = oidc;
    this.users = users;
    this.tokens = tokens;
    this.audit = audit;
  }

  /** Who signed in, and the token their browser now holds. */
  public record SignedIn(String userId, String email, UserService.IssuedToken token) {}

  @Transactional
  public SignedIn signIn(Map<String, Object> claims) {
    String email = text(claims.get("email"));
    if (email == null || !email.contains("@")) {
      throw new GshareException(ProblemCode.FORBIDDEN, "the identity provider sent no email address for this account;"
          + " gShare needs the email scope and claim");
    }
    if (Boolean.FALSE.equals(claims.get("email_verified"))) {
      throw new GshareException(ProblemCode.FORBIDDEN, "the identity provider has not verified " + email);
    }
    email = email.toLowerCase(Locale.ROOT);
    Role mapped = mappedRole(claims);
    String team = oidc.teamClaim().isBlank() ? null : text(claims.get(oidc.teamClaim()));
    UserRepository.User user = users.findByEmail(email).orElse(null);
    if (user == null) {
      if (oidc.provisioning() == OidcProperties.Provisioning.PRECREATED) {
        audit.denied("oidc:" + email, "user", email, "no gShare user for this email (provisioning is precreated)");
        throw new GshareException(ProblemCode.FORBIDDEN, "there is no gShare user for " + email
            + "; ask an administrator to create it");
      }
      String id = NewIds.next("usr");
      String name = Objects.requireNonNullElse(text(claims.get("name")), email);
      users.insert(id, email, name, mapped == null ? Role.USER : mapped,
          team != null && users.teamExists(team) ? team : null);
      audit.changed("user:" + id, "user.provisioned", "user", id, "first sign-in through the identity provider",
          Map.of("email", email));
      user = users.findById(id).orElseThrow();
    } else {
      if (user.disabled()) {
        audit.denied("user:" + user.id(), "user", user.id(), "disabled user tried to sign in");
        throw new GshareException(ProblemCode.FORBIDDEN, "the gShare user " + email + " is disabled");
      }
      Role role = mapped == null ? user.role() : mapped;
      String teamId = team != null && users.teamExists(team) ? team : user.teamId();
      if (role != user.role() || !Objects.equals(teamId, user.teamId())) {
        users.update(user.id(), role, teamId, false, user.displayName());
        audit.changed("oidc", "user.updated", "user", user.id(), "role or team from the identity provider's claims",
            Map.of("role", role.wireName(), "team", teamId == null ? "" : teamId));
      }
    }
    UserService.IssuedToken token = tokens.issue(user.id(), TOKEN_NAME, oidc.browserSessionTtl());
    audit.changed("user:" + user.id(), "user.signed_in", "user", user.id(), "signed in through the identity provider",
        Map.of("token_id", token.id()));
    return new SignedIn(user.id(), email, token);
  }

  /** The role the claims give, or null when no role claim is configured or the claim is absent. */
  Role mappedRole(Map<String, Object> claims) {
    if (oidc.roleClaim().isBlank() || !claims.containsKey(oidc.roleClaim())) {
      return null;
    }
    Object value = claims.get(oidc.roleClaim());
    List<String> values = value instanceof Collection<?> c ? c.stream().map(String::valueOf).toList()
        : value == null ? List.of() : List.of(String.valueOf(value));
    if (values.stream().anyMatch(oidc.superAdminValues()::contains)) {
      return Role.SUPER_ADMIN;
    }
    if (values.stream().anyMatch(oidc.adminValues()::contains)) {
      return Role.ADMIN;
    }
    return Role.USER;
  }

  private static String text(Object value) {
    return value == null || String.valueOf(value).isBlank() ? null : String.valueOf(value);
  }
}
