package io.gshare.cli.credit;

import com.fasterxml.jackson.databind.JsonNode;
import io.gshare.cli.CliCommand;
import io.gshare.cli.support.OutputFormat;
import io.gshare.cli.support.Table;
import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;
import io.gshare.client.credit.Credits;
import java.math.BigDecimal;
import java.util.Map;
import java.util.UUID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gshare credits}: the balance and the ledger; admins grant. */
@Command(name = "credits", mixinStandardHelpOptions = true,
    description = "Your credit balance and latest ledger entries (admins: anyone's, and grants).",
    subcommands = CreditsCommand.Grant.class,
    footerHeading = "%nExamples:%n", footer = {"  gshare credits", "  gshare credits --user usr_61sc --limit 20",
        "  gshare credits grant --user usr_61sc --amount 500 --description 'course credits'"})
public final class CreditsCommand extends CliCommand implements Runnable {

  @Option(names = "--user", paramLabel = "ID", description = "admins: this user's credits") String user;
  @Option(names = "--limit", defaultValue = "20", description = "ledger entries to show (default ${DEFAULT-VALUE})") int limit;


  @Override
  public void run() {
    JsonNode raw = api().get(ApiPaths.query(ApiPaths.CREDITS, "user_id", user, "limit", limit));
    Credits.Account credits = GshareClient.convert(raw, Credits.Account.class);
    print(raw, () -> {
      Table table = Table.of("WHEN", "AMOUNT", "KIND", "SESSION", "DESCRIPTION");
      credits.entries().forEach(e -> table.row(e.createdAt(), e.amount(), e.kind(), e.sessionId(), e.description()));
      return table;
    });
    if (root().output() == OutputFormat.TABLE) {
      note("balance: " + credits.balance().toPlainString() + " credits (" + credits.userId() + ")");
    }
  }

  @Command(name = "grant", mixinStandardHelpOptions = true,
      description = "Grant credits to a user (admins). Retrying with the same --idempotency-key books it once.",
      footerHeading = "%nExamples:%n", footer = {"  gshare credits grant --user usr_61sc --amount 500"})
  static final class Grant extends CliCommand implements Runnable {
    @Option(names = "--user", required = true, paramLabel = "ID") String user;
    @Option(names = "--amount", required = true, description = "credits, more than 0") BigDecimal amount;
    @Option(names = "--description", description = "why, for the ledger") String description;
    @Option(names = "--idempotency-key", paramLabel = "KEY", description = "default: a new random key")
    String key;

    @Override
    public void run() {
      String idempotencyKey = key == null ? "cli-" + UUID.randomUUID() : key;
      JsonNode raw = api().post(ApiPaths.CREDIT_GRANTS, new Credits.Grant(user, amount, description, idempotencyKey),
          Map.of("Idempotency-Key", idempotencyKey));
      Credits.Granted granted = GshareClient.convert(raw, Credits.Granted.class);
      print(raw, () -> Table.of("ENTRY", "BOOKED", "BALANCE").row(granted.entryId(),
          granted.created() ? "yes" : "no (already booked with this key)", granted.balance()));
    }
  }
}
