package io.gshare.cli.operation;

import io.gshare.cli.support.Terminal;
import io.gshare.client.operation.Step;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Live progress of an operation's steps on stderr. On a terminal the block of steps is redrawn in place
 * ({@code ✓ done, ▸ running, · pending, ✗ failed}); piped, each change is one plain line, so logs read in order.
 */
public final class StepsPrinter {

  private final Terminal terminal;
  private final Map<String, String> printed = new LinkedHashMap<>();
  private int linesDrawn;

  public StepsPrinter(Terminal terminal) {
    this.terminal = terminal;
  }

  public void show(String heading, List<Step> steps) {
    if (terminal.interactive()) {
      redraw(heading, steps);
    } else {
      for (Step step : steps) {
        String seen = step.status() + "|" + (step.detail() == null ? "" : step.detail());
        if (!seen.equals(printed.get(step.name())) && !"pending".equals(step.status())) {
          printed.put(step.name(), seen);
          terminal.err().println(heading + " | " + step.name() + ": " + step.status()
              + (step.detail() == null || step.detail().isBlank() ? "" : " (" + step.detail() + ")"));
        }
      }
    }
    terminal.err().flush();
  }

  private void redraw(String heading, List<Step> steps) {
    List<String> lines = new ArrayList<>();
    lines.add(heading);
    for (Step step : steps) {
      String mark = switch (String.valueOf(step.status())) {
        case Step.DONE -> "✓";
        case Step.RUNNING -> "▸";
        case Step.FAILED -> "✗";
        default -> "·";
      };
      lines.add("  " + mark + " " + step.name()
          + (step.detail() == null || step.detail().isBlank() ? "" : "  " + step.detail()));
    }
    StringBuilder out = new StringBuilder();
    if (linesDrawn > 0) {
      out.append("\033[").append(linesDrawn).append('A');
    }
    for (String line : lines) {
      String fitted = terminal.width() > 0 && line.length() > terminal.width()
          ? line.substring(0, terminal.width() - 1) + "…" : line;
      out.append("\033[2K").append(fitted).append('\n');
    }
    linesDrawn = lines.size();
    terminal.err().print(out);
  }
}
