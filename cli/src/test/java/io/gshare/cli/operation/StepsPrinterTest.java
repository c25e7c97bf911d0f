package io.gshare.cli.operation;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.cli.support.Terminal;
import io.gshare.client.operation.Step;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class StepsPrinterTest {

  private final StringWriter err = new StringWriter();

  private StepsPrinter printer(boolean interactive) {
    return new StepsPrinter(new Terminal(new PrintWriter(new StringWriter()), new PrintWriter(err, true), interactive,
        interactive ? 60 : 0));
  }

  @Test
  void pipedEachStepChangeIsOnePlainLineAndRepeatsAreNotPrinted() {
    StepsPrinter printer = printer(false);
    printer.show("drain nod_1", List.of(new Step("cordon", "running", null), new Step("move sessions", "pending", null)));
    printer.show("drain nod_1", List.of(new Step("cordon", "running", null), new Step("move sessions", "pending", null)));
    printer.show("drain nod_1", List.of(new Step("cordon", "done", null), new Step("move sessions", "done", "2 moved")));
    assertThat(err.toString()).isEqualTo("""
        drain nod_1 | cordon: running
        drain nod_1 | cordon: done
        drain nod_1 | move sessions: done (2 moved)
        """);
    assertThat(err.toString()).doesNotContain("\033");
  }

  @Test
  void onATerminalTheBlockIsRedrawnInPlace() {
    StepsPrinter printer = printer(true);
    printer.show("attach gpu-lab", List.of(new Step("deploy the worker", "running", null), new Step("first report", "pending", null)));
    printer.show("attach gpu-lab", List.of(new Step("deploy the worker", "done", null),
        new Step("first report", "failed", "no report within 5 minutes and a very long detail that is cut")));
    String drawn = err.toString();
    // The second drawing moves up over the three lines of the first and clears each line it writes.
    assertThat(drawn).contains("\033[3A").contains("\033[2K");
    assertThat(drawn).contains("▸ deploy the worker").contains("· first report").contains("✓ deploy the worker")
        .contains("✗ first report");
    drawn.lines().map(line -> line.replace("\033[3A", "").replace("\033[2K", ""))
        .forEach(line -> assertThat(line.length()).isLessThanOrEqualTo(60));
  }
}
