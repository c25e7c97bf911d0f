package io.gshare.core.session;

import io.gshare.core.support.OneTimeCodes;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The one-time codes that hand a browser's sign-in from the console to a session's domain: the console issues one
 * for a session its caller owns and sends the browser to the session URL with it; the session's auth check redeems
 * it once, within {@link #LIFETIME}, for that session only, and sets the session domain's cookie. Codes are random
 * (192 bits), stored only as their SHA-256, and redeemed by one atomic update, so two replicas cannot both accept one.
 */
@Repository
public class ConnectCodes {

  public static final Duration LIFETIME = Duration.ofSeconds(60);

  private final JdbcClient jdbc;
  private final Clock clock = Clock.systemUTC();

  ConnectCodes(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** A redeemed code: whose, for which session. */
  public record Redeemed(String sessionId, String userId) {}

  /** Issues a code for {@code userId} to open {@code sessionId}; the caller has checked the ownership. */
  public String issue(String sessionId, String userId) {
    String code = OneTimeCodes.newCode();
    jdbc.sql("""
        insert into connect_codes (code_hash, session_id, user_id, created_at, expires_at)
        values (:h, :s, :u, :now, :expires)
        """).param("h", OneTimeCodes.hash(code)).param("s", sessionId).param("u", userId)
        .param("now", Timestamp.from(clock.instant())).param("expires", Timestamp.from(clock.instant().plus(LIFETIME)))
        .update();
    // Old codes go as new ones come: the table holds about a minute's worth.
    jdbc.sql("delete from connect_codes where expires_at < :before")
        .param("before", Timestamp.from(clock.instant().minus(Duration.ofHours(1)))).update();
    return code;
  }

  /** Redeems a code once: empty when it is unknown, expired, already used, or for another session. */
  public Optional<Redeemed> redeem(String code, String sessionId) {
    if (code == null || code.isBlank() || code.length() > 64) {
      return Optional.empty();
    }
    return jdbc.sql("""
        update connect_codes set redeemed_at = :now
         where code_hash = :h and session_id = :s and redeemed_at is null and expires_at > :now
        returning session_id, user_id
        """).param("h", OneTimeCodes.hash(code)).param("s", sessionId).param("now", Timestamp.from(clock.instant()))
        .query((rs, n) -> new Redeemed(rs.getString(1), rs.getString(2))).optional();
  }
}
