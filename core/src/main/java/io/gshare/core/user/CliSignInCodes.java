package io.gshare.core.user;

import io.gshare.core.support.OneTimeCodes;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The one-time codes that hand a browser's sign-in to the {@code gshare} CLI: the console, with its caller signed
 * in, issues one bound to the CLI's PKCE challenge (RFC 7636, S256) and sends the browser to the CLI's loopback
 * listener with it; the CLI redeems it once, within {@link #LIFETIME}, with the verifier only it knows. A code seen
 * by another program on the machine is useless without the verifier. Stored only as SHA-256, redeemed by one atomic
 * update.
 */
@Repository
public class CliSignInCodes {

  public static final Duration LIFETIME = Duration.ofSeconds(60);

  private final JdbcClient jdbc;
  private final Clock clock = Clock.systemUTC();

  CliSignInCodes(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** A PKCE challenge as RFC 7636 spells one for S256: 43 characters of base64url. */
  public static boolean isChallenge(String value) {
    return value != null && value.matches("[A-Za-z0-9_-]{43}");
  }

  /** Issues a code for {@code userId}, redeemable with the verifier of {@code challenge}. */
  public String issue(String userId, String challenge) {
    if (!isChallenge(challenge)) {
      throw new IllegalArgumentException("not an S256 code challenge");
    }
    String code = OneTimeCodes.newCode();
    jdbc.sql("""
        insert into cli_sign_in_codes (code_hash, user_id, code_challenge, created_at, expires_at)
        values (:h, :u, :c, :now, :expires)
        """).param("h", OneTimeCodes.hash(code)).param("u", userId).param("c", challenge)
        .param("now", Timestamp.from(clock.instant())).param("expires", Timestamp.from(clock.instant().plus(LIFETIME)))
        .update();
    jdbc.sql("delete from cli_sign_in_codes where expires_at < :before")
        .param("before", Timestamp.from(clock.instant().minus(Duration.ofHours(1)))).update();
    return code;
  }

  /** The user a code signs in, once: empty when it is unknown, expired, used, or the verifier does not match. */
  public Optional<String> redeem(String code, String verifier) {
    if (code == null || code.isBlank() || code.length() > 64 || verifier == null
        || !verifier.matches("[A-Za-z0-9._~-]{43,128}")) {
      return Optional.empty();
    }
    return jdbc.sql("""
        update cli_sign_in_codes set redeemed_at = :now
         where code_hash = :h and code_challenge = :c and redeemed_at is null and expires_at > :now
        returning user_id
        """).param("h", OneTimeCodes.hash(code)).param("c", OneTimeCodes.challengeOf(verifier))
        .param("now", Timestamp.from(clock.instant()))
        .query(String.class).optional();
  }
}
