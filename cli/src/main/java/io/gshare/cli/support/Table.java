package io.gshare.cli.support;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A plain-text table sized to the terminal: columns as wide as their widest cell; when the whole is wider than the
 * terminal, the widest columns give way first (cut with an ellipsis, never below a few characters). Piped output
 * (width 0) is never cut, so scripts reading columns get whole values.
 */
public final class Table {

  private static final int GAP = 3;
  private static final int NARROWEST = 6;

  private final List<String> headers;
  private final List<List<String>> rows = new ArrayList<>();

  private Table(List<String> headers) {
    this.headers = headers;
  }

  public static Table of(String... headers) {
    return new Table(List.of(headers));
  }

  public Table row(Object... cells) {
    if (cells.length != headers.size()) {
      throw new IllegalArgumentException("a row of " + cells.length + " cells for " + headers.size() + " columns");
    }
    rows.add(Arrays.stream(cells).map(Table::cell).toList());
    return this;
  }

  public boolean isEmpty() {
    return rows.isEmpty();
  }

  public String render(int width, boolean withHeaders) {
    int[] widths = new int[headers.size()];
    List<List<String>> all = new ArrayList<>();
    if (withHeaders) {
      all.add(headers);
    }
    all.addAll(rows);
    for (List<String> row : all) {
      for (int i = 0; i < widths.length; i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    if (width > 0) {
      fit(widths, width);
    }
    StringBuilder out = new StringBuilder();
    for (List<String> row : all) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < widths.length; i++) {
        String cell = cut(row.get(i), widths[i]);
        line.append(cell);
        if (i < widths.length - 1) {
          line.append(" ".repeat(widths[i] - cell.length() + GAP));
        }
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  private static void fit(int[] widths, int width) {
    int total = Arrays.stream(widths).sum() + GAP * (widths.length - 1);
    while (total > width) {
      int widest = 0;
      for (int i = 1; i < widths.length; i++) {
        if (widths[i] > widths[widest]) {
          widest = i;
        }
      }
      if (widths[widest] <= NARROWEST) {
        return;
      }
      widths[widest]--;
      total--;
    }
  }

  private static String cut(String cell, int width) {
    return cell.length() <= width ? cell : cell.substring(0, Math.max(0, width - 1)) + "…";
  }

  private static String cell(Object value) {
    if (value == null) {
      return "-";
    }
    String text = String.valueOf(value).replace('\n', ' ').replace('\t', ' ');
    return text.isEmpty() ? "-" : text;
  }
}
