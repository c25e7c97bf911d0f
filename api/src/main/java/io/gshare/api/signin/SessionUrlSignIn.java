package io.gshare.api.signin;

import io.gshare.api.security.Caller;
import io.gshare.api.security.OidcProperties;
import io.gshare.api.security.SignInPaths;
import io.gshare.api.user.UserService;
import io.gshare.core.audit.AuditLog;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.session.ConnectCodes;
import io.gshare.core.session.SessionRepository;
import io.gshare.core.user.UserRepository;
import java.net.URI;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Session URLs opened in a browser, on any cluster's domain. A browser with no cookie on the session's domain is sent
 * by the router to the console's {@code /auth/connect?rd=<session URL>}; there, signed in on the console, its owner
 * gets a one-time code ({@link ConnectCodes}: one session, one user, a minute, once) appended to the session URL; the
 * session's auth check redeems it and sets a cookie for that session's path on that domain. The token itself never
 * travels in a URL.
 */
@Service
public class SessionUrlSignIn {

  /** {@code /s/<sessionId>/...}: the path every session URL has. */
  public static final Pattern SESSION_PATH = Pattern.compile("^/s/([a-z0-9][a-z0-9_-]{0,62})(?:/.*)?$");
  /** The name of the token a redeemed code becomes. */
  static final String TOKEN_NAME = "session-url";

  private final SessionRepository sessions;
  private final ConnectCodes codes;
  private final UserRepository users;
  private final UserService tokens;
  private final OidcProperties oidc;
  private final AuditLog audit;

  SessionUrlSignIn(SessionRepository sessions, ConnectCodes codes, UserRepository users, UserService tokens,
      OidcProperties oidc, AuditLog audit) {
    this.sessions = sessions;
    this.codes = codes;
    this.users = users;
    this.tokens = tokens;
    this.oidc = oidc;
    this.audit = audit;
  }

  /** A redeemed code: who, which session, and the token for the session domain's cookie. */
  public record Redeemed(Caller.User caller, String sessionId, UserService.IssuedToken token) {}

  /** The session id of a session URL's path, if it is one. */
  public static Optional<String> sessionOf(URI url) {
    if (url == null || url.getRawPath() == null) {
      return Optional.empty();
    }
    Matcher m = SESSION_PATH.matcher(url.getRawPath());
    return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
  }

  /**
   * Where the console sends its signed-in {@code caller} back to: {@code rd} with a fresh code. Refused (403, audited)
   * for a URL that is not a session URL of the session's own domain, or a session that is not the caller's.
   */
  @Transactional
  public URI redirectWithCode(Caller.User caller, String rd) {
    URI url;
    try {
      url = rd == null ? null : URI.create(rd);
    } catch (IllegalArgumentException e) {
      url = null;
    }
    if (url == null || !("https".equals(url.getScheme()) || "http".equals(url.getScheme())) || url.getHost() == null) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "rd must be a session URL, https://<session domain>/s/<id>/...");
    }
    String sessionId = sessionOf(url).orElseThrow(() -> new GshareException(ProblemCode.VALIDATION_FAILED,
        "rd must be a session URL, https://<session domain>/s/<id>/..."));
    SessionRepository.UrlTarget target = sessions.urlTargetOf(sessionId).orElse(null);
    String why = target == null ? "no such session"
        : !target.userId().equals(caller.userId()) ? "not the owner"
        : !url.getHost().equalsIgnoreCase(String.valueOf(target.sessionDomain())) ? "host is not the session's cluster domain"
        : null;
    if (why != null) {
      audit.denied(caller.actor(), "session", sessionId, why);
      throw new GshareException(ProblemCode.FORBIDDEN, "you cannot open this session: " + why);
    }
    String code = codes.issue(sessionId, caller.userId());
    String query = url.getRawQuery() == null ? "" : url.getRawQuery()
        .replaceAll("(^|&)" + SignInPaths.CODE_PARAM + "=[^&]*", "").replaceAll("^&", "");
    return URI.create(url.getScheme() + "://" + url.getRawAuthority() + url.getRawPath() + "?"
        + (query.isEmpty() ? "" : query + "&") + SignInPaths.CODE_PARAM + "=" + code);
  }

  /** Redeems {@code code} for {@code sessionId}: empty when it is not (or no longer) good, or the user is disabled. */
  @Transactional
  public Optional<Redeemed> redeem(String code, String sessionId) {
    return codes.redeem(code, sessionId).flatMap(r -> users.findById(r.userId()).filter(u -> !u.disabled())
        .map(u -> {
          UserService.IssuedToken token = tokens.issue(u.id(), TOKEN_NAME, oidc.browserSessionTtl());
          return new Redeemed(new Caller.User(u.id(), u.role(), u.teamId(), token.id()),
              sessionId, token);
        }));
  }
}
