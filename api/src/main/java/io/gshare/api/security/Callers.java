package io.gshare.api.security;

import io.gshare.core.cluster.ClusterRepository;
import io.gshare.core.cluster.OperatorTokenRepository;
import io.gshare.core.user.UserRepository;
import io.gshare.workflows.common.Ids;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.core.convert.converter.Converter;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.stereotype.Component;

/**
 * Turns a verified token into its {@link Caller}, reading from Postgres what may have changed since the
 * token was signed: a user's role, team, disabled flag and the token's revocation; whether an
 * operator's cluster is still attached. Used by the resource server's converters and by
 * {@code /internal/connect/verify}, which authenticates on its own.
 */
@Component
public class Callers {

  private static final String OPERATOR_PREFIX = "operator:";

  private final Tokens tokens;
  private final UserRepository users;
  private final ClusterRepository clusters;
  private final OperatorTokenRepository operatorTokens;
  /** The jti each cluster's worker last authenticated with, as this process last recorded it. */
  private final Map<String, String> seenTokens = new ConcurrentHashMap<>();

  Callers(Tokens tokens, UserRepository users, ClusterRepository clusters, OperatorTokenRepository operatorTokens) {
    this.tokens = tokens;
    this.users = users;
    this.clusters = clusters;
    this.operatorTokens = operatorTokens;
  }

  /** The user behind a raw user API token, with role and team as they are now. */
  public Caller.User user(String token) throws InvalidTokenException {
    Tokens.Verified verified = tokens.verify(TokenKind.USER, token);
    return user(verified.subject(), verified.tokenId());
  }

  /**
   * The worker behind a raw operator token, as {@code /internal} accepts it (its key set, type, audience, expiry; its
   * cluster still attached), its token recorded as seen: the Temporal gateway authenticates workers with it.
   */
  public Caller.Operator operator(String token) throws InvalidTokenException {
    Tokens.Verified verified = tokens.verify(TokenKind.INTERNAL, token);
    return operator(verified.subject(), verified.tokenId(), verified.expiresAt());
  }

  /** The operator a verified token's subject names, its token recorded as seen. */
  private Caller.Operator operator(String subject, String jti, Instant expiresAt) throws InvalidTokenException {
    Caller.Operator operator = operatorOf(subject);
    seen(operator.clusterId(), jti, expiresAt);
    return operator;
  }

  Caller.User user(String userId, String tokenId) throws InvalidTokenException {
    UserRepository.TokenHolder holder = users.tokenHolder(tokenId, userId)
        .orElseThrow(() -> new InvalidTokenException("token unknown"));
    if (holder.revokedAt() != null) {
      throw new InvalidTokenException("token revoked");
    }
    if (holder.disabled()) {
      throw new InvalidTokenException("user disabled");
    }
    return new Caller.User(holder.userId(), holder.role(), holder.teamId(), tokenId);
  }

  Caller.Operator operatorOf(String subject) throws InvalidTokenException {
    if (subject == null || !subject.startsWith(OPERATOR_PREFIX) || !Ids.isValid(subject.substring(OPERATOR_PREFIX.length()))) {
      throw new InvalidTokenException("token subject is not operator:<clusterId>");
    }
    String clusterId = subject.substring(OPERATOR_PREFIX.length());
    // A detached cluster's worker may live on (its cluster was unreachable at detach): its token is dead.
    if (!clusters.acceptsReportsFrom(clusterId)) {
      throw new InvalidTokenException("cluster " + clusterId + " is not registered (or was detached)");
    }
    return new Caller.Operator(clusterId);
  }

  /**
   * Records which token the cluster's worker uses, so a rotation can tell when it took the new one.
   * Cheap per request: Postgres is written only when the jti differs from the one this process recorded.
   */
  void seen(String clusterId, String jti, Instant expiresAt) {
    if (jti == null || jti.equals(seenTokens.get(clusterId))) {
      return;
    }
    operatorTokens.seen(clusterId, jti, expiresAt);
    seenTokens.put(clusterId, jti);
  }

  Converter<Jwt, AbstractAuthenticationToken> userConverter() {
    return jwt -> {
      try {
        return new CallerAuthentication(user(jwt.getSubject(), jwt.getId()), jwt);
      } catch (InvalidTokenException e) {
        throw new InvalidBearerTokenException(e.getMessage(), e);
      }
    };
  }

  Converter<Jwt, AbstractAuthenticationToken> operatorConverter() {
    return jwt -> {
      try {
        return new CallerAuthentication(operator(jwt.getSubject(), jwt.getId(), jwt.getExpiresAt()), jwt);
      } catch (InvalidTokenException e) {
        throw new InvalidBearerTokenException(e.getMessage(), e);
      }
    };
  }
}
