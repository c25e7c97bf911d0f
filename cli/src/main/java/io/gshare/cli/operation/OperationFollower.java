package io.gshare.cli.operation;

import io.gshare.cli.CliEnv;
import io.gshare.cli.support.CliException;
import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;
import io.gshare.client.operation.Operation;
import io.gshare.client.operation.OperationRef;
import java.time.Duration;
import java.time.Instant;

/** Follows a long operation to its end, showing its steps as they move; a failed operation is a failed command. */
public final class OperationFollower {

  private final GshareClient api;
  private final Duration poll;
  private final StepsPrinter printer;

  public OperationFollower(GshareClient api, Duration poll, StepsPrinter printer) {
    this.api = api;
    this.poll = poll;
    this.printer = printer;
  }

  public Operation follow(String operationId, Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    while (true) {
      Operation operation = api.get(ApiPaths.operation(operationId), Operation.class);
      printer.show(operation.kind() + " " + operation.objectId(), operation.steps());
      if (!operation.running()) {
        if (!Operation.COMPLETED.equals(operation.status())) {
          throw new CliException("operation " + operationId + " " + operation.status()
              + (operation.error() == null ? "" : ": " + operation.error())
              + (operation.temporalUiUrl() == null ? "" : " (trace: " + operation.temporalUiUrl() + ")"));
        }
        return operation;
      }
      if (Instant.now().isAfter(deadline)) {
        throw new CliException("operation " + operationId + " still running after " + timeout.toSeconds()
            + " s (next step: " + operation.nextStep() + "); follow it with: gshare operations get " + operationId
            + " --wait");
      }
      sleep(poll);
    }
  }

  /**
   * What a command that started an operation does with it: with {@code --wait}, follows its steps to the end;
   * otherwise says (on stderr) how to follow it later. Nothing when no operation was started.
   */
  public static void followOrAnnounce(CliEnv env, GshareClient api, OperationRef operation, boolean wait,
      Duration timeout) {
    if (operation == null) {
      return;
    }
    if (wait) {
      new OperationFollower(api, env.pollInterval(), new StepsPrinter(env.terminal())).follow(operation.id(), timeout);
    } else {
      env.terminal().err().println("operation " + operation.id() + " started (gshare operations get " + operation.id()
          + " --wait)");
      env.terminal().err().flush();
    }
  }

  public static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException("interrupted", e);
    }
  }
}
