package io.gshare.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.gshare.api.security.Caller;
import io.swagger.v3.oas.annotations.media.Schema;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * springdoc names a schema by the record's simple name; two records of one name become one schema, and the document
 * then describes one of them with the other's members (it did: three {@code Accepted} records documented as the
 * internal plane's {@code {accepted: int}}). Every record an operation reads or writes has a schema name of its own.
 */
class OpenApiSchemaNamesTest {

  @Test
  void everyRecordTheApiReadsOrWritesHasASchemaNameOfItsOwn() {
    Map<String, Set<String>> classesByName = new TreeMap<>();
    Set<Class<?>> seen = new HashSet<>();
    Deque<Type> pending = new ArrayDeque<>();
    for (JavaClass controller : new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.gshare.api")) {
      if (!controller.isAnnotatedWith(RestController.class)) {
        continue;
      }
      for (Method method : controller.reflect().getDeclaredMethods()) {
        if (AnnotatedElementUtils.hasAnnotation(method, RequestMapping.class)) {
          pending.add(method.getGenericReturnType());
          // The caller comes from the token and is no part of the document (OpenApiConfig ignores it).
          Arrays.stream(method.getGenericParameterTypes())
              .filter(t -> !(t instanceof Class<?> c && c.getEnclosingClass() == Caller.class))
              .forEach(pending::add);
        }
      }
    }
    while (!pending.isEmpty()) {
      Type type = pending.pop();
      if (type instanceof ParameterizedType parameterized) {
        pending.addAll(List.of(parameterized.getActualTypeArguments()));
        pending.add(parameterized.getRawType());
      } else if (type instanceof Class<?> c && c.isRecord() && seen.add(c)) {
        Schema schema = c.getAnnotation(Schema.class);
        String name = schema != null && !schema.name().isBlank() ? schema.name() : c.getSimpleName();
        classesByName.computeIfAbsent(name, n -> new TreeSet<>()).add(c.getName());
        for (var component : c.getRecordComponents()) {
          pending.add(component.getGenericType());
        }
      }
    }
    assertThat(classesByName).hasSizeGreaterThan(50);
    Map<String, Set<String>> shared = new TreeMap<>();
    classesByName.forEach((name, classes) -> {
      if (classes.size() > 1 && !sameShape(classes)) {
        shared.put(name, classes);
      }
    });
    assertThat(shared).as("schema names shared by records of different members").isEmpty();
  }

  /** Records of one name and the same members (the OperationRef of several controllers) make one honest schema. */
  private static boolean sameShape(Set<String> classNames) {
    Set<String> shapes = new HashSet<>();
    for (String name : classNames) {
      try {
        StringBuilder shape = new StringBuilder();
        for (var component : Class.forName(name).getRecordComponents()) {
          shape.append(component.getName()).append(':').append(component.getGenericType().getTypeName()).append(';');
        }
        shapes.add(shape.toString());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(e);
      }
    }
    return shapes.size() == 1;
  }
}
