package io.gshare.clusterworker;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Prometheus text exposition format, as far as a scrape of HAMi's vGPU monitor needs it: the samples of the
 * wanted metrics with their labels and values. One parser for the worker's {@link UsageReporter} and the node's
 * {@link UsageAgent}, so both read the monitor alike. Comments, other metrics and lines it cannot read are
 * skipped: one odd line must not lose a whole scrape.
 */
final class PromText {

  /** One sample line: {@code metric{labels} value [timestamp]}. */
  record Series(String metric, Map<String, String> labels, double value) {
    String label(String name) {
      return labels.get(name);
    }
  }

  private PromText() {}

  /** Every sample of {@code metrics} in {@code text}, in order. */
  static List<Series> parse(String text, Set<String> metrics) {
    List<Series> series = new ArrayList<>();
    for (String line : text.split("\n")) {
      Series s = line(line.trim(), metrics);
      if (s != null) {
        series.add(s);
      }
    }
    return series;
  }

  /** One line, or null for a comment, a blank, another metric or a line it cannot read. */
  static Series line(String line, Set<String> metrics) {
    if (line.isEmpty() || line.charAt(0) == '#') {
      return null;
    }
    int i = 0;
    while (i < line.length() && isNameChar(line.charAt(i), i == 0)) {
      i++;
    }
    String metric = line.substring(0, i);
    if (metric.isEmpty() || !metrics.contains(metric)) {
      return null;
    }
    Map<String, String> labels = new HashMap<>();
    if (i < line.length() && line.charAt(i) == '{') {
      i = labels(line, i + 1, labels);
      if (i < 0) {
        return null;
      }
    }
    String[] rest = line.substring(i).trim().split("\\s+");
    if (rest.length == 0 || rest[0].isEmpty()) {
      return null;
    }
    Double value = value(rest[0]);
    return value == null ? null : new Series(metric, Collections.unmodifiableMap(labels), value);
  }

  /** Reads {@code name="value",...}} from {@code i}; the index after the closing brace, or -1 when malformed. */
  private static int labels(String line, int i, Map<String, String> labels) {
    while (true) {
      while (i < line.length() && (line.charAt(i) == ' ' || line.charAt(i) == ',')) {
        i++;
      }
      if (i >= line.length()) {
        return -1;
      }
      if (line.charAt(i) == '}') {
        return i + 1;
      }
      int start = i;
      while (i < line.length() && isNameChar(line.charAt(i), i == start)) {
        i++;
      }
      String name = line.substring(start, i);
      if (name.isEmpty() || i + 1 >= line.length() || line.charAt(i) != '=' || line.charAt(i + 1) != '"') {
        return -1;
      }
      i += 2;
      StringBuilder value = new StringBuilder();
      while (i < line.length() && line.charAt(i) != '"') {
        char c = line.charAt(i);
        if (c == '\\' && i + 1 < line.length()) {
          char next = line.charAt(++i);
          value.append(next == 'n' ? '\n' : next);
        } else {
          value.append(c);
        }
        i++;
      }
      if (i >= line.length()) {
        return -1;
      }
      labels.put(name, value.toString());
      i++; // the closing quote
    }
  }

  private static Double value(String text) {
    switch (text) {
      case "+Inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf":
        return Double.NEGATIVE_INFINITY;
      case "NaN":
        return Double.NaN;
      default:
        try {
          return Double.parseDouble(text);
        } catch (NumberFormatException e) {
          return null;
        }
    }
  }

  private static boolean isNameChar(char c, boolean first) {
    return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || !first && c >= '0' && c <= '9';
  }
}
