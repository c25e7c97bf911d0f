package io.gshare.api.cli;

import io.gshare.api.security.SigningKeyRing;
import io.gshare.api.security.TokenKind;
import io.gshare.api.security.Tokens;
import io.gshare.workflows.common.Ids;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * {@code java -jar gshare-api.jar sign-internal-jwt operator:<clusterId> [--ttl SECONDS]}: prints an
 * operator token and nothing else, as the guide's {@code sign_internal_jwt('operator:$CID', ttl=604800)}
 * does. Needs only the key directory (GSHARE_SECURITY_KEY_DIR), not the database.
 */
public final class InternalJwtCommand {

  public static final String NAME = "sign-internal-jwt";
  static final String USAGE = "usage: gshare-api sign-internal-jwt operator:<clusterId> [--ttl SECONDS]   "
      + "(env GSHARE_SECURITY_KEY_DIR, GSHARE_SECURITY_ISSUER)";

  private InternalJwtCommand() {}

  /** Returns the exit code. */
  public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    String subject = null;
    long ttlSeconds = 604_800;
    for (int i = 1; i < args.length; i++) {
      if (args[i].equals("--ttl") && i + 1 < args.length) {
        try {
          ttlSeconds = Long.parseLong(args[++i]);
        } catch (NumberFormatException e) {
          return usage(err, "--ttl must be a number of seconds");
        }
      } else if (args[i].startsWith("--ttl=")) {
        try {
          ttlSeconds = Long.parseLong(args[i].substring(6));
        } catch (NumberFormatException e) {
          return usage(err, "--ttl must be a number of seconds");
        }
      } else if (subject == null && !args[i].startsWith("--")) {
        subject = args[i];
      } else {
        return usage(err, "unexpected argument " + args[i]);
      }
    }
    if (subject == null || !subject.startsWith("operator:") || !Ids.isValid(subject.substring("operator:".length()))) {
      return usage(err, "the subject must be operator:<clusterId>");
    }
    if (ttlSeconds <= 0 || ttlSeconds > Duration.ofDays(30).toSeconds()) {
      return usage(err, "--ttl must be between 1 and 2592000 seconds");
    }
    String keyDir = env.get("GSHARE_SECURITY_KEY_DIR");
    if (keyDir == null || keyDir.isBlank()) {
      return usage(err, "GSHARE_SECURITY_KEY_DIR is not set");
    }
    Clock clock = Clock.systemUTC();
    Duration retention = Duration.ofDays(30);
    Map<TokenKind, SigningKeyRing> rings = new EnumMap<>(TokenKind.class);
    for (TokenKind kind : TokenKind.values()) {
      rings.put(kind, SigningKeyRing.open(Path.of(keyDir).resolve(kind.keySetFile()), kind.keySetName(), retention,
          false, clock));
    }
    Tokens tokens = new Tokens(env.getOrDefault("GSHARE_SECURITY_ISSUER", "gshare"), rings, Duration.ofSeconds(60), clock);
    out.println(tokens.sign(TokenKind.INTERNAL, subject, null, Duration.ofSeconds(ttlSeconds)));
    return 0;
  }

  private static int usage(PrintStream err, String problem) {
    err.println("sign-internal-jwt: " + problem);
    err.println(USAGE);
    return 2;
  }
}
