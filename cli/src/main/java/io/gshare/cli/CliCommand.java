package io.gshare.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.gshare.cli.config.CliConfig;
import io.gshare.cli.support.CliException;
import io.gshare.cli.support.Json;
import io.gshare.cli.support.OutputFormat;
import io.gshare.cli.support.Table;
import io.gshare.cli.support.Terminal;
import io.gshare.cli.support.Version;
import io.gshare.client.GshareClient;
import java.net.URI;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** What every command has: the run's environment, the global options, and the API of the chosen context. */
public abstract class CliCommand {

  @Spec protected CommandSpec spec;

  protected GshareCli root() {
    return (GshareCli) spec.root().userObject();
  }

  protected CliEnv env() {
    return root().env();
  }

  protected Terminal terminal() {
    return env().terminal();
  }

  /**
   * The API to talk to: {@code $GSHARE_SERVER} and {@code $GSHARE_TOKEN} when set (CI jobs), else the context named by
   * {@code --context}, else the current one.
   */
  protected GshareClient api() {
    String server = env().env().apply("GSHARE_SERVER");
    String token = env().env().apply("GSHARE_TOKEN");
    if (server != null && !server.isBlank() && token != null && !token.isBlank()) {
      return client(URI.create(server), token);
    }
    CliConfig.Context context = context();
    return client(URI.create(context.server()), context.token());
  }

  /** The API at {@code server} as this CLI calls it (its {@code User-Agent} names the CLI and its version). */
  public static GshareClient client(URI server, String token) {
    return new GshareClient(server, token).userAgent("gshare-cli/" + Version.current());
  }

  protected CliConfig.Context context() {
    CliConfig config = env().config().load();
    String name = root().contextName() != null ? root().contextName() : config.currentContext();
    if (name == null) {
      throw new CliException("not signed in: run 'gshare login --server https://gshare.example.com' first");
    }
    return config.context(name).orElseThrow(() -> new CliException("no context '" + name + "' (gshare context list)"));
  }

  /** Prints {@code document} whole as JSON or YAML, or {@code table} for people. */
  protected void print(JsonNode document, Supplier<Table> table) {
    OutputFormat format = root().output();
    try {
      switch (format) {
        case JSON -> terminal().out().println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(document));
        case YAML -> terminal().out().print(Json.YAML.writeValueAsString(document));
        case TABLE -> {
          Table t = table.get();
          terminal().out().print(t.render(terminal().width(), !root().noHeaders()));
        }
      }
    } catch (JsonProcessingException e) {
      throw new CliException("cannot print the answer: " + e.getOriginalMessage(), e);
    }
    terminal().out().flush();
  }

  /** A line for people on stderr (progress, hints), kept out of what scripts parse on stdout. */
  protected void note(String line) {
    terminal().err().println(line);
    terminal().err().flush();
  }
}
