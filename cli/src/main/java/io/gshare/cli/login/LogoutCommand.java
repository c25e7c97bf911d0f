package io.gshare.cli.login;

import io.gshare.cli.CliCommand;
import io.gshare.cli.config.CliConfig;
import io.gshare.cli.support.CliException;
import picocli.CommandLine.Command;

/** {@code gshare logout}: forgets a context's credentials (the token itself is revoked in the console). */
@Command(name = "logout", mixinStandardHelpOptions = true,
    description = "Forget the current context (or --context NAME) and its token on this machine.",
    footerHeading = "%nExamples:%n", footer = {"  gshare logout", "  gshare logout --context prod"})
public final class LogoutCommand extends CliCommand implements Runnable {

  @Override
  public void run() {
    CliConfig config = env().config().load();
    String name = root().contextName() != null ? root().contextName() : config.currentContext();
    if (name == null || config.context(name).isEmpty()) {
      throw new CliException("not signed in" + (name == null ? "" : " to context '" + name + "'"));
    }
    env().config().save(config.without(name));
    note("context '" + name + "' removed from " + env().config().file());
  }
}
