package io.gshare.cli.support;

import java.io.File;
import java.io.PrintWriter;
import java.util.function.Function;

/**
 * Where the CLI writes: standard output for results, standard error for progress and errors.
 *
 * @param interactive standard output is a terminal: progress redraws in place, tables fit {@code width}
 * @param width columns to fit tables into; 0 for no limit (output piped to a file or a program)
 */
public record Terminal(PrintWriter out, PrintWriter err, boolean interactive, int width) {

  /** The process's own: a TTY when {@code System.console()} is one; width from {@code $COLUMNS} or {@code stty}. */
  public static Terminal system(Function<String, String> env) {
    boolean tty = System.console() != null;
    return new Terminal(new PrintWriter(System.out, true), new PrintWriter(System.err, true), tty,
        tty ? width(env) : 0);
  }

  private static int width(Function<String, String> env) {
    try {
      int columns = Integer.parseInt(String.valueOf(env.apply("COLUMNS")).trim());
      if (columns > 0) {
        return columns;
      }
    } catch (NumberFormatException notSet) {
      // ask the terminal itself
    }
    try {
      Process stty = new ProcessBuilder("stty", "size").redirectInput(ProcessBuilder.Redirect.from(
          new File("/dev/tty"))).redirectErrorStream(true).start();
      String[] size = new String(stty.getInputStream().readAllBytes()).trim().split("\\s+");
      if (stty.waitFor() == 0 && size.length == 2) {
        return Integer.parseInt(size[1]);
      }
    } catch (Exception noTerminalSize) {
      // fall through to the classic width
    }
    return 80;
  }
}
