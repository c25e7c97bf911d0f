package io.gshare.cli;

import io.gshare.cli.catalogue.CatalogueCommands;
import io.gshare.cli.cluster.ClustersCommand;
import io.gshare.cli.config.ContextCommand;
import io.gshare.cli.credit.CreditsCommand;
import io.gshare.cli.login.LoginCommand;
import io.gshare.cli.login.LogoutCommand;
import io.gshare.cli.login.WhoamiCommand;
import io.gshare.cli.node.GpusCommand;
import io.gshare.cli.node.NodesCommand;
import io.gshare.cli.operation.OperationsCommand;
import io.gshare.cli.session.SessionsCommand;
import io.gshare.cli.support.CliException;
import io.gshare.cli.support.OutputFormat;
import io.gshare.cli.support.Version;
import io.gshare.cli.volume.VolumesCommand;
import io.gshare.client.ApiCallException;
import io.gshare.client.ApiProblemException;
import java.net.ConnectException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * {@code gshare}: the command-line tool for users and operators. It talks only to the public REST API. Exit codes:
 * 0 done, 1 the API refused (its problem's detail on stderr) or the CLI could not do it, 2 a usage error.
 */
@Command(name = "gshare", mixinStandardHelpOptions = true, versionProvider = GshareCli.VersionProvider.class,
    description = "GPU sessions on gShare, from the terminal: sign in, start, pause and open sessions, keep volumes,"
        + " and, for operators, attach clusters, drain nodes and manage the catalogue.",
    subcommands = {
        LoginCommand.class, LogoutCommand.class, WhoamiCommand.class, ContextCommand.class,
        SessionsCommand.class, VolumesCommand.class, CreditsCommand.class, OperationsCommand.class,
        ClustersCommand.class, NodesCommand.class, GpusCommand.class,
        CatalogueCommands.Offerings.class, CatalogueCommands.Images.class, CatalogueCommands.NodePools.class,
        CatalogueCommands.StoragePools.class, CatalogueCommands.Policies.class, CatalogueCommands.Users.class,
        CompletionCommand.class, CommandLine.HelpCommand.class},
    footerHeading = "%nExamples:%n",
    footer = {
        "  gshare login --server https://gshare.example.com",
        "  gshare sessions create --offering a100-full --image pytorch --wait",
        "  gshare sessions list -o json",
        "  gshare nodes drain gpu-node-3 --wait",
        "",
        "Exit codes: 0 done, 1 refused by the API or failed (the reason on stderr), 2 usage error."})
public final class GshareCli implements Runnable {

  public static final int EXIT_OK = 0;
  public static final int EXIT_FAILED = 1;
  public static final int EXIT_USAGE = 2;

  @Option(names = {"-o", "--output"}, scope = ScopeType.INHERIT, paramLabel = "FORMAT",
      converter = OutputFormatConverter.class, description = "table (default), json or yaml")
  private OutputFormat output = OutputFormat.TABLE;

  @Option(names = "--no-headers", scope = ScopeType.INHERIT, description = "tables without their header line")
  private boolean noHeaders;

  @Option(names = "--context", scope = ScopeType.INHERIT, paramLabel = "NAME",
      description = "the control plane to talk to (gshare context list); default: the current one")
  private String contextName;

  @CommandLine.Spec private CommandLine.Model.CommandSpec spec;

  private final CliEnv env;

  public GshareCli(CliEnv env) {
    this.env = env;
  }

  public CliEnv env() {
    return env;
  }

  public OutputFormat output() {
    return output;
  }

  public boolean noHeaders() {
    return noHeaders;
  }

  public String contextName() {
    return contextName;
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a command is needed");
  }

  public static void main(String[] args) {
    CliEnv env = CliEnv.system();
    int exit = run(env, args);
    env.terminal().out().flush();
    env.terminal().err().flush();
    System.exit(exit);
  }

  /** Runs one command line; answers its exit code. */
  public static int run(CliEnv env, String... args) {
    return commandLine(env).execute(args);
  }

  /** The command tree, wired to {@code env}: its output, error handling and exit codes. */
  public static CommandLine commandLine(CliEnv env) {
    CommandLine cli = new CommandLine(new GshareCli(env));
    cli.setOut(env.terminal().out());
    cli.setErr(env.terminal().err());
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    cli.setUsageHelpAutoWidth(true);
    withExamples(cli);
    cli.setExecutionExceptionHandler((e, commandLine, parsed) -> {
      if (e instanceof ApiProblemException problem) {
        env.terminal().err().println(problem.problem().describe());
      } else if (e instanceof CliException failure) {
        env.terminal().err().println("error: " + failure.getMessage());
      } else if (e instanceof ApiCallException failure) {
        env.terminal().err().println("error: " + failure.getMessage()
            + (failure.getCause() instanceof ConnectException ? " (gshare context list)" : ""));
      } else {
        env.terminal().err().println("error: " + e);
        if (env.env().apply("GSHARE_DEBUG") != null) {
          e.printStackTrace(env.terminal().err());
        }
      }
      env.terminal().err().flush();
      return EXIT_FAILED;
    });
    return cli;
  }

  /**
   * Every command's help ends with examples: a command that spells none (the catalogue's shared list, get, create,
   * ...) gets one made from its full name and its parameters, e.g. {@code gshare offerings get ID}.
   */
  private static void withExamples(CommandLine command) {
    CommandLine.Model.UsageMessageSpec usage = command.getCommandSpec().usageMessage();
    if (usage.footer().length == 0 && command.getSubcommands().isEmpty()) {
      StringBuilder example = new StringBuilder("  ").append(command.getCommandSpec().qualifiedName());
      command.getCommandSpec().positionalParameters().forEach(p -> example.append(' ').append(p.paramLabel()));
      command.getCommandSpec().options().stream().filter(CommandLine.Model.OptionSpec::required)
          .forEach(o -> example.append(' ').append(o.longestName()).append(' ').append(o.paramLabel()));
      if (command.getCommandSpec().findOption("--set") != null) {
        example.append(" --set name=value");
      }
      usage.footerHeading("%nExamples:%n").footer(example.toString());
    }
    command.getSubcommands().values().stream().distinct().forEach(GshareCli::withExamples);
  }

  /** {@code -o}'s values, case-insensitive. */
  static final class OutputFormatConverter implements CommandLine.ITypeConverter<OutputFormat> {
    @Override
    public OutputFormat convert(String value) {
      return OutputFormat.parse(value);
    }
  }

  static final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"gshare " + Version.current()};
    }
  }
}
