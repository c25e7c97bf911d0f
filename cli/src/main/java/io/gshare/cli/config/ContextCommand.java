package io.gshare.cli.config;

import io.gshare.cli.CliCommand;
import io.gshare.cli.support.CliException;
import io.gshare.cli.support.Json;
import io.gshare.cli.support.Table;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code gshare context}: the control planes this machine is signed in to, and which is current. */
@Command(name = "context", aliases = "contexts", mixinStandardHelpOptions = true,
    description = "Several control planes: list them, pick the current one, remove one.",
    subcommands = {ContextCommand.ListContexts.class, ContextCommand.Use.class, ContextCommand.Current.class,
        ContextCommand.Remove.class},
    footerHeading = "%nExamples:%n", footer = {"  gshare context list", "  gshare context use prod",
        "  gshare sessions list --context staging"})
public final class ContextCommand {

  @Command(name = "list", aliases = "ls", mixinStandardHelpOptions = true, description = "Every context (* is current).")
  static final class ListContexts extends CliCommand implements Runnable {
    @Override
    public void run() {
      CliConfig config = env().config().load();
      // Tokens never leave the config file through this command.
      var shown = Json.MAPPER.createArrayNode();
      config.contexts().forEach((name, c) -> shown.add(Json.MAPPER.createObjectNode().put("name", name)
          .put("server", c.server()).put("user", c.user()).put("current", name.equals(config.currentContext()))
          .put("token_expires_at", c.tokenExpiresAt() == null ? null : c.tokenExpiresAt().toString())));
      print(shown, () -> {
        Table table = Table.of("CURRENT", "NAME", "SERVER", "USER", "TOKEN EXPIRES");
        for (Map.Entry<String, CliConfig.Context> e : config.contexts().entrySet()) {
          table.row(e.getKey().equals(config.currentContext()) ? "*" : "", e.getKey(), e.getValue().server(),
              e.getValue().user(), e.getValue().tokenExpiresAt());
        }
        return table;
      });
    }
  }

  @Command(name = "use", mixinStandardHelpOptions = true, description = "Make a context the current one.")
  static final class Use extends CliCommand implements Runnable {
    @Parameters(paramLabel = "NAME") String name;

    @Override
    public void run() {
      CliConfig config = env().config().load();
      if (config.context(name).isEmpty()) {
        throw new CliException("no context '" + name + "'; these exist: " + String.join(", ", config.contexts().keySet()));
      }
      env().config().save(config.use(name));
      note("context '" + name + "' is current");
    }
  }

  @Command(name = "current", mixinStandardHelpOptions = true, description = "Print the current context's name.")
  static final class Current extends CliCommand implements Runnable {
    @Override
    public void run() {
      String current = env().config().load().currentContext();
      if (current == null) {
        throw new CliException("no context yet: gshare login --server https://gshare.example.com");
      }
      terminal().out().println(current);
      terminal().out().flush();
    }
  }

  @Command(name = "remove", aliases = "rm", mixinStandardHelpOptions = true, description = "Forget a context.")
  static final class Remove extends CliCommand implements Runnable {
    @Parameters(paramLabel = "NAME") String name;

    @Override
    public void run() {
      CliConfig config = env().config().load();
      if (config.context(name).isEmpty()) {
        throw new CliException("no context '" + name + "'");
      }
      env().config().save(config.without(name));
      note("context '" + name + "' removed");
    }
  }
}
