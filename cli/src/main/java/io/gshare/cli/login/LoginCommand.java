package io.gshare.cli.login;

import io.gshare.cli.CliCommand;
import io.gshare.cli.config.CliConfig;
import io.gshare.cli.support.CliException;
import io.gshare.client.user.Me;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gshare login}: a context for a control plane, signed in with an API token or in a browser. */
@Command(name = "login", mixinStandardHelpOptions = true,
    description = "Sign in to a gShare control plane: in a browser with your organisation's identity provider (the"
        + " default), or with an API token. The credentials go to the config dir (mode 0600) as a context.",
    footerHeading = "%nExamples:%n", footer = {
        "  gshare login --server https://gshare.example.com",
        "  gshare login --server https://gshare.example.com --token \"$GSHARE_TOKEN\" --name prod",
        "  gshare login --server https://gshare.example.com --token-stdin < token.txt"})
public final class LoginCommand extends CliCommand implements Runnable {

  @Option(names = "--server", paramLabel = "URL",
      description = "the control plane's URL; default: the current context's")
  String server;

  @Option(names = "--token", paramLabel = "TOKEN", description = "an API token (POST /api/v1/users/<your id>/tokens issues one; the dev runtime writes demo.token)")
  String token;

  @Option(names = "--token-stdin", description = "read the API token from standard input (keeps it out of ps)")
  boolean tokenStdin;

  @Option(names = "--name", paramLabel = "CONTEXT", description = "the context's name; default: the server's host")
  String name;

  @Option(names = "--browser-timeout", defaultValue = "PT5M", paramLabel = "DURATION",
      description = "how long to wait for the browser sign-in (ISO-8601, default ${DEFAULT-VALUE})")
  Duration browserTimeout;

  @Override
  public void run() {
    CliConfig config = env().config().load();
    String target = server;
    if (target == null) {
      String current = root().contextName() != null ? root().contextName() : config.currentContext();
      target = current == null ? null : config.context(current).map(CliConfig.Context::server).orElse(null);
    }
    if (target == null) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--server is needed the first time");
    }
    URI base = serverUri(target);
    String contextName = name != null ? name : root().contextName() != null ? root().contextName() : base.getHost();
    String credential = token;
    if (tokenStdin) {
      if (token != null) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "give --token or --token-stdin, not both");
      }
      credential = readStdin();
    }
    Instant expiresAt = null;
    if (credential == null) {
      LoopbackSignIn.CliToken issued = LoopbackSignIn.run(env(), base, browserTimeout);
      credential = issued.token();
      expiresAt = issued.expiresAt();
    }
    Me me = CliCommand.client(base, credential).users().me();
    env().config().save(config.with(contextName, new CliConfig.Context(base.toString(), credential, me.email(),
        expiresAt), true));
    note("signed in to " + base + " as " + me.email() + " (" + me.role() + "); context '" + contextName + "' is current");
  }

  static URI serverUri(String value) {
    URI uri;
    try {
      uri = URI.create(value.endsWith("/") ? value.substring(0, value.length() - 1) : value);
    } catch (IllegalArgumentException e) {
      throw new CliException("--server must be a URL like https://gshare.example.com (was '" + value + "')");
    }
    if (uri.getHost() == null || !("https".equals(uri.getScheme()) || "http".equals(uri.getScheme()))) {
      throw new CliException("--server must be a URL like https://gshare.example.com (was '" + value + "')");
    }
    return uri;
  }

  private String readStdin() {
    try {
      String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      if (line == null || line.isBlank()) {
        throw new CliException("--token-stdin read no token");
      }
      return line.trim();
    } catch (IOException e) {
      throw new CliException("cannot read the token from standard input: " + e.getMessage(), e);
    }
  }
}
