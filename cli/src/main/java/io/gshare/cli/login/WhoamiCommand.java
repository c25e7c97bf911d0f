package io.gshare.cli.login;

import com.fasterxml.jackson.databind.JsonNode;
import io.gshare.cli.CliCommand;
import io.gshare.cli.support.ApiClient;
import io.gshare.cli.support.Table;
import picocli.CommandLine.Command;

/** {@code gshare whoami}: who the current context signs in as. */
@Command(name = "whoami", mixinStandardHelpOptions = true, description = "Who you are signed in as, and where.",
    footerHeading = "%nExamples:%n", footer = {"  gshare whoami", "  gshare whoami --context prod -o json"})
public final class WhoamiCommand extends CliCommand implements Runnable {

  @Override
  public void run() {
    ApiClient api = api();
    JsonNode raw = api.get("/api/v1/users/me");
    Me me = ApiClient.convert(raw, Me.class);
    print(raw, () -> Table.of("SERVER", "USER", "ID", "ROLE", "TEAM").row(api.server(), me.email(), me.id(), me.role(),
        me.teamId()));
  }
}
