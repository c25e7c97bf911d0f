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
import java.util.List;
import java.util.Map;

/**
 * {@code java -jar gshare-api.jar sign-internal-jwt operator:<clusterId> [--ttl SECONDS]}: prints an
 * operator token and nothing else, as the guide's {@code sign_internal_jwt('operator:$CID', ttl=604800)}
 * does. With keys in files it needs only the key directory (GSHARE_SECURITY_KEY_DIR); with
 * {@code GSHARE_SECURITY_KEYSTORE=database} (the chart's setting) the api's database settings too, and the main class
 * starts a quiet context for it ({@link #run(Tokens, Request, PrintStream)}).
 */
public final class InternalJwtCommand {

  public static final String NAME = "sign-internal-jwt";
  static final String USAGE = "usage: gshare-api sign-internal-jwt operator:<clusterId> [--ttl SECONDS]   "
      + "(env GSHARE_SECURITY_KEY_DIR, GSHARE_SECURITY_ISSUER; with GSHARE_SECURITY_KEYSTORE=database, GSHARE_DB_*)";

  private InternalJwtCommand() {}

  /** What to sign. */
  public record Request(String subject, Duration ttl) {}

  /** True when the signing keys are in the database, so the command needs the api's context. */
  public static boolean keysInDatabase(Map<String, String> env) {
    return "database".equalsIgnoreCase(env.getOrDefault("GSHARE_SECURITY_KEYSTORE", "").trim());
  }

  /** Signs with the key directory's files; returns the exit code. */
  public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    Request request = parse(args, err);
    if (request == null) {
      return 2;
    }
    String keyDir = env.get("GSHARE_SECURITY_KEY_DIR");
    if (keyDir == null || keyDir.isBlank()) {
      return usage(err, "GSHARE_SECURITY_KEY_DIR is not set");
    }
    Clock clock = Clock.systemUTC();
    Duration retention = Duration.ofDays(30);
    Map<TokenKind, SigningKeyRing> rings = new EnumMap<>(TokenKind.class);
    // The internal set first: the one this command signs with is the one a missing directory is reported by.
    for (TokenKind kind : List.of(TokenKind.INTERNAL, TokenKind.USER)) {
      try {
        rings.put(kind, SigningKeyRing.open(Path.of(keyDir).resolve(kind.keySetFile()), kind.keySetName(), retention,
            false, clock));
      } catch (IllegalStateException | java.io.UncheckedIOException e) {
        err.println("sign-internal-jwt: " + e.getMessage());
        return 1;
      }
    }
    return run(new Tokens(env.getOrDefault("GSHARE_SECURITY_ISSUER", "gshare"), rings, Duration.ofSeconds(60), clock),
        request, out);
  }

  /** Signs with the api's own keys (any store). */
  public static int run(Tokens tokens, Request request, PrintStream out) {
    out.println(tokens.sign(TokenKind.INTERNAL, request.subject(), null, request.ttl()));
    return 0;
  }

  /** The request, or null after printing the usage. Spring properties ({@code --spring.*}, {@code --gshare.*}) pass. */
  public static Request parse(String[] args, PrintStream err) {
    String subject = null;
    long ttlSeconds = 604_800;
    for (int i = 1; i < args.length; i++) {
      if (args[i].equals("--ttl") && i + 1 < args.length) {
        try {
          ttlSeconds = Long.parseLong(args[++i]);
        } catch (NumberFormatException e) {
          usage(err, "--ttl must be a number of seconds");
          return null;
        }
      } else if (args[i].startsWith("--ttl=")) {
        try {
          ttlSeconds = Long.parseLong(args[i].substring(6));
        } catch (NumberFormatException e) {
          usage(err, "--ttl must be a number of seconds");
          return null;
        }
      } else if (args[i].startsWith("--spring.") || args[i].startsWith("--gshare.")) {
        continue;
      } else if (subject == null && !args[i].startsWith("--")) {
        subject = args[i];
      } else {
        usage(err, "unexpected argument " + args[i]);
        return null;
      }
    }
    if (subject == null || !subject.startsWith("operator:") || !Ids.isValid(subject.substring("operator:".length()))) {
      usage(err, "the subject must be operator:<clusterId>");
      return null;
    }
    if (ttlSeconds <= 0 || ttlSeconds > Duration.ofDays(30).toSeconds()) {
      usage(err, "--ttl must be between 1 and 2592000 seconds");
      return null;
    }
    return new Request(subject, Duration.ofSeconds(ttlSeconds));
  }

  private static int usage(PrintStream err, String problem) {
    err.println("sign-internal-jwt: " + problem);
    err.println(USAGE);
    return 2;
  }
}
