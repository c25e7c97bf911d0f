package io.gshare.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * An offline check of custom resources against their CRDs' {@code openAPIV3Schema}, the way the apiserver checks
 * them: wrong types, missing required fields and values outside an enum fail, and so does a field the schema does
 * not have (the apiserver would prune it silently; here it is an error, as for the built-in kinds), except under
 * {@code x-kubernetes-preserve-unknown-fields} or a map's {@code additionalProperties}. The CRDs are the operators'
 * own files, which {@code hack/tools.sh} copies into {@code .tools/crds} from their Go modules.
 */
final class CrdSchemas {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final List<JsonNode> crds = new ArrayList<>();

  CrdSchemas(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        crds.add(YAML.readTree(file.toFile()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the CRDs in " + dir + " (run hack/tools.sh)", e);
    }
  }

  /** The CRD version schema for an object's apiVersion and kind, if one of the CRDs defines it. */
  Optional<JsonNode> schemaOf(String apiVersion, String kind) {
    int slash = apiVersion.indexOf('/');
    String group = slash < 0 ? "" : apiVersion.substring(0, slash);
    String version = apiVersion.substring(slash + 1);
    for (JsonNode crd : crds) {
      JsonNode spec = crd.path("spec");
      if (spec.path("group").asText().equals(group) && spec.path("names").path("kind").asText().equals(kind)) {
        for (JsonNode v : spec.path("versions")) {
          if (v.path("name").asText().equals(version) && v.path("served").asBoolean()) {
            return Optional.of(v.path("schema").path("openAPIV3Schema"));
          }
        }
      }
    }
    return Optional.empty();
  }

  /** What is wrong with the object (YAML), by the CRD of its kind; a kind no CRD here defines is an error. */
  List<String> violations(String yaml) {
    JsonNode object;
    try {
      object = YAML.readTree(yaml);
    } catch (IOException e) {
      return List.of("not YAML: " + e.getMessage());
    }
    String apiVersion = object.path("apiVersion").asText();
    String kind = object.path("kind").asText();
    Optional<JsonNode> schema = schemaOf(apiVersion, kind);
    if (schema.isEmpty()) {
      return List.of("no CRD serves " + apiVersion + " " + kind);
    }
    JsonNode strict = closed(schema.get().deepCopy());
    return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(strict).validate(object).stream()
        .map(ValidationMessage::getMessage).sorted().toList();
  }

  /** The schema with every object that lists its properties closed to others, as a structural schema is. */
  private static JsonNode closed(JsonNode schema) {
    if (schema instanceof ObjectNode node) {
      if (node.has("properties") && !node.has("additionalProperties")
          && !node.path("x-kubernetes-preserve-unknown-fields").asBoolean()) {
        node.put("additionalProperties", false);
      }
      node.properties().forEach(e -> closed(e.getValue()));
    } else if (schema != null && schema.isArray()) {
      schema.forEach(CrdSchemas::closed);
    }
    return schema;
  }
}
