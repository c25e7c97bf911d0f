package io.gshare.cli.operation;

import com.fasterxml.jackson.databind.JsonNode;
import io.gshare.cli.CliCommand;
import io.gshare.cli.support.OutputFormat;
import io.gshare.cli.support.Table;
import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;
import io.gshare.client.operation.Operation;
import io.gshare.client.operation.OperationList;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gshare operations}: the long operations (Temporal workflows) on an object, and their steps. */
@Command(name = "operations", aliases = "ops", mixinStandardHelpOptions = true,
    description = "Long operations (Temporal workflows) and their steps.",
    subcommands = {OperationsCommand.Get.class, OperationsCommand.ListRuns.class})
public final class OperationsCommand {

  @Command(name = "get", mixinStandardHelpOptions = true, description = "One operation: status and steps.",
      footerHeading = "%nExamples:%n", footer = {"  gshare operations get drain-node_0f3a --wait"})
  static final class Get extends CliCommand implements Runnable {
    @Parameters(paramLabel = "OPERATION_ID") String id;
    @Option(names = "--wait", description = "follow the steps until the operation ends") boolean wait;
    @Option(names = "--timeout", defaultValue = "PT30M", description = "how long --wait waits (ISO-8601, default PT30M)")
    Duration timeout;

    @Override
    public void run() {
      GshareClient api = api();
      if (wait) {
        new OperationFollower(api, env().pollInterval(), new StepsPrinter(terminal())).follow(id, timeout);
      }
      JsonNode raw = api.get(ApiPaths.operation(id));
      Operation operation = GshareClient.convert(raw, Operation.class);
      print(raw, () -> {
        Table table = Table.of("STEP", "STATUS", "DETAIL");
        operation.steps().forEach(s -> table.row(s.name(), s.status(), s.detail()));
        return table;
      });
      if (root().output() == OutputFormat.TABLE) {
        note(operation.kind() + " " + operation.objectId() + ": " + operation.status()
            + (operation.error() == null ? "" : " — " + operation.error())
            + (operation.temporalUiUrl() == null ? "" : "\ntrace: " + operation.temporalUiUrl()));
      }
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "Every operation run on one object, newest first.",
      footerHeading = "%nExamples:%n", footer = {"  gshare operations list --object session/ses_0f3a",
          "  gshare operations list --object node/node_12"})
  static final class ListRuns extends CliCommand implements Runnable {
    @Option(names = "--object", required = true, paramLabel = "KIND/ID",
        description = "the object: session/<id>, cluster/<id>, node/<id>, volume/<id>, image/<id>")
    String object;

    @Override
    public void run() {
      int slash = object.indexOf('/');
      if (slash <= 0 || slash == object.length() - 1) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "--object must be KIND/ID, e.g. session/ses_0f3a (was '" + object + "')");
      }
      JsonNode raw = api().get(ApiPaths.query(ApiPaths.OPERATIONS, "object_kind", object.substring(0, slash),
          "object_id", object.substring(slash + 1)));
      OperationList list = GshareClient.convert(raw, OperationList.class);
      print(raw, () -> {
        Table table = Table.of("OPERATION", "TYPE", "STATUS", "STARTED", "ENDED");
        list.items().forEach(o -> table.row(o.id(), o.type(), o.status(), o.startedAt(), o.endedAt()));
        return table;
      });
    }
  }
}
