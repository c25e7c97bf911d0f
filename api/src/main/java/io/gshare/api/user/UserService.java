package io.gshare.api.user;

import io.gshare.api.security.Access;
import io.gshare.api.security.BrowserTokens;
import io.gshare.api.security.Caller;
import io.gshare.api.security.SecurityProperties;
import io.gshare.api.security.TokenKind;
import io.gshare.api.security.Tokens;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.support.NewIds;
import io.gshare.core.user.Role;
import io.gshare.core.user.UserRepository;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Users, their roles and their API tokens. */
@Service
public class UserService implements BrowserTokens {

  /** A freshly issued token; the only time its value is shown. */
  public record IssuedToken(String id, String token, Instant expiresAt) {}

  private final UserRepository users;
  private final Tokens tokens;
  private final SecurityProperties properties;
  private final Access access;
  private final Clock clock = Clock.systemUTC();

  UserService(UserRepository users, Tokens tokens, SecurityProperties properties, Access access) {
    this.users = users;
    this.tokens = tokens;
    this.properties = properties;
    this.access = access;
  }

  @Transactional
  public UserRepository.User create(Caller.User caller, String email, String displayName, String role, String teamId) {
    Role wanted = role == null ? Role.USER : requireRole(role);
    if (wanted != Role.USER) {
      access.requireSuperAdmin(caller, "user", null); // only a super admin makes admins
    }
    requireTeam(teamId);
    if (users.findByEmail(email).isPresent()) {
      throw new GshareException(ProblemCode.CONFLICT, "a user with email " + email + " already exists");
    }
    String id = NewIds.next("usr");
    users.insert(id, email, displayName, wanted, teamId);
    return users.findById(id).orElseThrow();
  }

  @Transactional
  public UserRepository.User update(Caller.User caller, String id, String role, String teamId, Boolean disabled,
      String displayName) {
    UserRepository.User current = users.findById(id).orElseThrow(() -> GshareException.notFound("user", id));
    Role newRole = role == null ? current.role() : requireRole(role);
    if (newRole != current.role() && (newRole != Role.USER || current.role() != Role.USER)) {
      access.requireSuperAdmin(caller, "user", id);
    }
    if (caller.userId().equals(id) && (Boolean.TRUE.equals(disabled) || newRole != current.role())) {
      throw new GshareException(ProblemCode.CONFLICT, "you cannot disable yourself or change your own role");
    }
    String newTeam = teamId == null ? current.teamId() : (teamId.isEmpty() ? null : teamId);
    requireTeam(newTeam);
    users.update(id, newRole, newTeam, disabled == null ? current.disabled() : disabled,
        displayName == null ? current.displayName() : displayName);
    return users.findById(id).orElseThrow();
  }

  public UserRepository.User get(Caller.User caller, String id) {
    if (!caller.userId().equals(id)) {
      access.requireAdmin(caller, "user", id);
    }
    return users.findById(id).orElseThrow(() -> GshareException.notFound("user", id));
  }

  public List<UserRepository.User> list() {
    return users.findAll();
  }

  /** Issues an API token for {@code userId}: the user for themselves, or an admin for anyone. */
  @Transactional
  public IssuedToken issueToken(Caller.User caller, String userId, String name, Duration ttl) {
    if (!caller.userId().equals(userId)) {
      access.requireAdmin(caller, "user", userId);
    }
    users.findById(userId).orElseThrow(() -> GshareException.notFound("user", userId));
    return issue(userId, name, ttl);
  }

  /** Issuing without a caller: only the bootstrap command does this. */
  @Transactional
  public IssuedToken issue(String userId, String name, Duration ttl) {
    Duration lifetime = ttl == null ? properties.userTokenTtl() : ttl;
    if (lifetime.isNegative() || lifetime.isZero() || lifetime.compareTo(properties.maxUserTokenTtl()) > 0) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED,
          "a token's lifetime must be between 1 second and " + properties.maxUserTokenTtl().toDays() + " days");
    }
    String tokenId = NewIds.next("tok");
    Instant expires = clock.instant().plus(lifetime);
    users.insertToken(tokenId, userId, name == null || name.isBlank() ? "default" : name, expires);
    return new IssuedToken(tokenId, tokens.sign(TokenKind.USER, userId, tokenId, lifetime), expires);
  }

  @Override
  public String issueBrowserToken(String userId, Duration ttl) {
    return issue(userId, "browser", ttl).token();
  }

  public List<UserRepository.ApiToken> tokens(Caller.User caller, String userId) {
    if (!caller.userId().equals(userId)) {
      access.requireAdmin(caller, "user", userId);
    }
    return users.tokensOf(userId);
  }

  @Transactional
  public void revoke(Caller.User caller, String userId, String tokenId) {
    if (!caller.userId().equals(userId)) {
      access.requireAdmin(caller, "user", userId);
    }
    if (!users.revokeToken(userId, tokenId)) {
      throw GshareException.notFound("token", tokenId);
    }
  }

  /**
   * Makes sure a super admin exists and returns a fresh token for it. A second run reuses the
   * existing super admin rather than creating another.
   */
  @Transactional
  public IssuedToken bootstrapSuperAdmin(String email) {
    UserRepository.User admin = users.firstSuperAdmin().orElseGet(() -> {
      String id = NewIds.next("usr");
      users.insert(id, email, "Super admin", Role.SUPER_ADMIN, null);
      return users.findById(id).orElseThrow();
    });
    return issue(admin.id(), "bootstrap", properties.userTokenTtl());
  }

  private static Role requireRole(String role) {
    try {
      return Role.fromWire(role);
    } catch (IllegalArgumentException e) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, e.getMessage());
    }
  }

  private void requireTeam(String teamId) {
    if (teamId != null && !users.teamExists(teamId)) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "no team with id '" + teamId + "'");
    }
  }
}
