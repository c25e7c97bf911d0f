package io.gshare.core.node;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;

/** Labels and capacities are stored as JSON objects of strings. */
final class NodeJson {

  private NodeJson() {}

  static Map<String, String> labels(ObjectMapper json, String value) {
    try {
      return value == null ? Map.of() : json.readValue(value, new TypeReference<Map<String, String>>() {});
    } catch (JsonProcessingException e) {
      return Map.of();
    }
  }

  static String toJson(ObjectMapper json, Map<String, String> labels) {
    try {
      return json.writeValueAsString(labels);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e);
    }
  }
}
