package io.gshare.api.config;

import io.swagger.v3.oas.models.media.Schema;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Two places where the generated document said less than the API does, found by the fault suite's schemathesis run:
 * <ul>
 *   <li>An optional scalar member may be {@code null}, which the API reads as absent (a policy's {@code null} limit
 *       is no limit): the document now types it {@code [T, "null"]} (an enum lists {@code null} too) instead of
 *       calling such bodies invalid.</li>
 *   <li>Bean Validation's {@code @Pattern} matches the whole value; a JSON Schema {@code pattern} matches anywhere in
 *       it. Each pattern is anchored, so {@code pause|terminate} no longer documents {@code "xpausex"} as valid.</li>
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
class OpenApiOptionalMembers {

  private static final Set<String> SCALARS = Set.of("string", "integer", "number", "boolean");

  @Bean
  OpenApiCustomizer optionalMembersMayBeNull() {
    return openApi -> {
      if (openApi.getComponents() == null || openApi.getComponents().getSchemas() == null) {
        return;
      }
      openApi.getComponents().getSchemas().values().forEach(OpenApiOptionalMembers::adjust);
    };
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  static void adjust(Schema<?> schema) {
    if (schema.getProperties() == null) {
      return;
    }
    List<String> required = schema.getRequired() == null ? List.of() : schema.getRequired();
    schema.getProperties().forEach((name, member) -> {
      Schema property = member;
      if (property.getPattern() != null && !property.getPattern().startsWith("^")) {
        property.setPattern("^(?:" + property.getPattern() + ")$");
      }
      Set<String> types = typesOf(property);
      if (!required.contains(name) && property.get$ref() == null && !types.isEmpty() && SCALARS.containsAll(types)) {
        Set<String> nullable = new LinkedHashSet<>(types);
        nullable.add("null");
        property.setTypes(nullable);
        property.setType(null);
        if (property.getEnum() != null && !property.getEnum().contains(null)) {
          // JSON Schema checks enum apart from type: a null the type allows must be listed too.
          property.getEnum().add(null);
        }
      }
    });
  }

  private static Set<String> typesOf(Schema<?> property) {
    if (property.getTypes() != null && !property.getTypes().isEmpty()) {
      return property.getTypes();
    }
    return property.getType() == null ? Set.of() : Set.of(property.getType());
  }
}
