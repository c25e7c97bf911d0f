package io.gshare.cli.support;

/** {@code -o}: a table for people, JSON or YAML (the API's own documents, whole) for scripts. */
public enum OutputFormat {
  TABLE, JSON, YAML;

  /** picocli's converter: {@code table}, {@code json}, {@code yaml}. */
  public static OutputFormat parse(String value) {
    for (OutputFormat format : values()) {
      if (format.name().equalsIgnoreCase(value)) {
        return format;
      }
    }
    throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not one of table, json, yaml");
  }
}
