package io.gshare.cli.catalogue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gshare.cli.support.CliException;
import io.gshare.cli.support.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;

/**
 * The body of a create or update: a JSON or YAML file ({@code -f}, {@code -} for stdin) as the API documents it
 * (snake_case members), with {@code --set name=value} pairs on top. A value that reads as JSON (a number, true,
 * false, null, a list) is sent as that; anything else as a string.
 */
final class Document {

  private Document() {}

  static ObjectNode of(Path file, List<String> sets, InputStream stdin) {
    ObjectNode body;
    try {
      if (file == null) {
        body = Json.MAPPER.createObjectNode();
      } else {
        JsonNode read = "-".equals(file.toString()) ? Json.YAML.readTree(stdin) : Json.YAML.readTree(file.toFile());
        if (!(read instanceof ObjectNode object)) {
          throw new CliException(file + " must hold one object (a YAML mapping or a JSON object)");
        }
        body = object;
      }
    } catch (IOException e) {
      throw new CliException("cannot read " + file + ": " + e.getMessage(), e);
    }
    for (String set : sets) {
      int eq = set.indexOf('=');
      if (eq <= 0) {
        throw new CliException("--set takes name=value (was '" + set + "')");
      }
      body.set(set.substring(0, eq), value(set.substring(eq + 1)));
    }
    return body;
  }

  private static JsonNode value(String text) {
    try {
      JsonNode parsed = Json.MAPPER.readTree(text);
      if (parsed != null && !parsed.isMissingNode() && !parsed.isObject()) {
        return parsed;
      }
    } catch (IOException notJson) {
      // a plain string
    }
    return Json.MAPPER.getNodeFactory().textNode(text);
  }
}
