package io.gshare.cli.login;

import com.fasterxml.jackson.databind.JsonNode;
import io.gshare.cli.CliCommand;
import io.gshare.cli.support.Table;
import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;
import io.gshare.client.user.Me;
import picocli.CommandLine.Command;

/** {@code gshare whoami}: who the current context signs in as. */
@Command(name = "whoami", mixinStandardHelpOptions = true, description = "Who you are signed in as, and where.",
    footerHeading = "%nExamples:%n", footer = {"  gshare whoami", "  gshare whoami --context prod -o json"})
public final class WhoamiCommand extends CliCommand implements Runnable {

  @Override
  public void run() {
    GshareClient api = api();
    JsonNode raw = api.get(ApiPaths.ME);
    Me me = GshareClient.convert(raw, Me.class);
    print(raw, () -> Table.of("SERVER", "USER", "ID", "ROLE", "TEAM").row(api.server(), me.email(), me.id(), me.role(),
        me.teamId()));
  }
}
