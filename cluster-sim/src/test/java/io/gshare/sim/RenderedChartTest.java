package io.gshare.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The chart charts/gshare, rendered by the real helm ({@code .tools/bin/helm}) with each values file and checked
 * offline, in seconds: every Kubernetes object against fabric8's model of the schema, the operators' kinds
 * (CloudNativePG, external-secrets) against their own CRD schemas ({@link CrdSchemas}). The real apiserver's strict
 * validation and an install until ready are {@code kube.DeployOnKubernetesIT}'s; hack/test/chart.bats checks what
 * the objects say.
 */
class RenderedChartTest {


  /** Kinds whose CRDs come with an operator the simulator does not run. */
  private static final Set<String> OPERATOR_KINDS = Set.of("Cluster", "ExternalSecret");
  private static final Pattern KIND = Pattern.compile("(?m)^kind: (\\S+)$");

  @ParameterizedTest
  @ValueSource(strings = {"", "deploy/values/incluster.yaml", "deploy/values/dockerhub.yaml"})
  void everyObjectOfTheRenderedChartHasOnlyFieldsItsSchemaHas(String valuesFile) throws Exception {
    Path repo = repoRoot();
    List<String> helm = new ArrayList<>(List.of(repo.resolve(".tools/bin/helm").toString(), "template", "gshare",
        repo.resolve("charts/gshare").toString(), "-n", "gshare-system"));
    if (!valuesFile.isEmpty()) {
      helm.addAll(List.of("-f", repo.resolve(valuesFile).toString()));
    }
    if (valuesFile.isEmpty()) {
      // the in-cluster database as a CloudNativePG Cluster instead of the demo StatefulSet
      helm.addAll(List.of("--set", "database.incluster.cloudnativepg=true"));
    }
    String rendered = run(helm, null);
    CrdSchemas crds = new CrdSchemas(repo.resolve(".tools/crds"));
    List<String> kept = new ArrayList<>();
    Set<String> skipped = new TreeSet<>();
    for (String doc : rendered.split("(?m)^---\\s*$")) {
      Matcher kind = KIND.matcher(doc);
      if (!kind.find()) {
        continue;
      }
      if (OPERATOR_KINDS.contains(kind.group(1))) {
        skipped.add(kind.group(1));
        assertThat(crds.violations(doc)).as("what the operator's CRD schema refuses in\n%s", doc).isEmpty();
      } else {
        kept.add(doc);
      }
    }
    assertThat(kept).as("rendered objects").hasSizeGreaterThan(5);
    for (String doc : kept) {
      assertThat(unknownFields(doc)).as("fields the Kubernetes schema does not have in\n%s", doc).isEmpty();
    }
    if (valuesFile.endsWith("dockerhub.yaml")) {
      assertThat(skipped).containsExactly("ExternalSecret");
    } else if (valuesFile.isEmpty()) {
      assertThat(skipped).containsExactly("Cluster");
    }
  }

  @Test
  void theCrdSchemaCheckFindsAMisspeltFieldAWrongTypeAndAnUnknownKind() {
    CrdSchemas crds = new CrdSchemas(repoRoot().resolve(".tools/crds"));
    assertThat(crds.violations("""
        apiVersion: postgresql.cnpg.io/v1
        kind: Cluster
        metadata: {name: gshare-db}
        spec:
          instances: 1
          storage: {size: 10Gi}
        """)).isEmpty();
    assertThat(crds.violations("""
        apiVersion: postgresql.cnpg.io/v1
        kind: Cluster
        metadata: {name: gshare-db}
        spec:
          instancez: 1
          storage: {size: 10Gi}
        """)).containsExactly(
        "$.spec: property 'instancez' is not defined in the schema and the schema does not allow additional properties",
        "$.spec: required property 'instances' not found");
    assertThat(crds.violations("""
        apiVersion: external-secrets.io/v1
        kind: ExternalSecret
        metadata: {name: keys}
        spec:
          refreshInterval: 1h
          secretStoreRef: {name: vault, kind: ClusterSecretStore}
          target: {name: keys, creationPolicy: Sometimes}
        """)).singleElement().asString().contains("creationPolicy");
    assertThat(crds.violations("""
        apiVersion: postgresql.cnpg.io/v9
        kind: Cluster
        metadata: {name: x}
        """)).containsExactly("no CRD serves postgresql.cnpg.io/v9 Cluster");
  }

  /**
   * An offline schema check: the object read into fabric8's Kubernetes model (generated from the API's OpenAPI
   * schemas; a wrong type fails the read), then every place where a field landed in a model class's
   * {@code additionalProperties} instead of a field of its own, i.e. a field the schema does not have.
   */
  static List<String> unknownFields(String yaml) {
    Object object = Serialization.unmarshal(yaml);
    assertThat(object).as("a typed Kubernetes object").isNotInstanceOf(GenericKubernetesResource.class);
    List<String> unknown = new ArrayList<>();
    walk(object, "", unknown, Collections.newSetFromMap(new IdentityHashMap<>()));
    return unknown;
  }

  private static void walk(Object value, String path, List<String> unknown, Set<Object> seen) {
    if (value == null || !seen.add(value)) {
      return;
    }
    if (value instanceof Collection<?> items) {
      int i = 0;
      for (Object item : items) {
        walk(item, path + "[" + i++ + "]", unknown, seen);
      }
      return;
    }
    if (value instanceof Map<?, ?> map) {
      map.forEach((k, v) -> walk(v, path + "." + k, unknown, seen));
      return;
    }
    if (!value.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
      return;
    }
    for (Class<?> type = value.getClass(); type != null && type != Object.class; type = type.getSuperclass()) {
      for (Field field : type.getDeclaredFields()) {
        if (Modifier.isStatic(field.getModifiers())) {
          continue;
        }
        field.setAccessible(true);
        Object child;
        try {
          child = field.get(value);
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
        if (field.getName().equals("additionalProperties") && child instanceof Map<?, ?> extra) {
          extra.keySet().forEach(k -> unknown.add(path + "." + k));
        } else if (!(value instanceof IntOrString)
            && !(value instanceof Quantity)) {
          walk(child, path + "." + field.getName(), unknown, seen);
        }
      }
    }
  }

  @Test
  void theSchemaCheckFindsAMisspeltField() {
    assertThat(unknownFields("""
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: x}
        spec:
          selector: {matchLabels: {a: b}}
          template:
            metadata: {labels: {a: b}}
            spec:
              containers:
                - name: api
                  image: registry.example.com/x:1
                  readinesProbe: {httpGet: {path: /healthz, port: 8080}}
        """)).containsExactly(".spec.template.spec.containers[0].readinesProbe");
  }

  private static String run(List<String> command, String input) throws IOException, InterruptedException {
    return TestProcesses.run(command, null, input);
  }

  /** The repository this test runs in, with the chart and .tools/bin/helm (make tools installs it). */
  private static Path repoRoot() {
    for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
      if (Files.isDirectory(at.resolve("charts/gshare"))) {
        if (!Files.isExecutable(at.resolve(".tools/bin/helm")) || !Files.isExecutable(at.resolve(".tools/bin/kubectl"))) {
          return fail("no .tools/bin/helm or kubectl in " + at + ": run make tools (hack/tools.sh) first");
        }
        return at;
      }
    }
    return fail("no charts/gshare above " + Path.of("").toAbsolutePath());
  }

  @Test
  void theSeedsInternalPlaneCommandRendersOnlyTheTwoPaths() throws Exception {
    Path repo = repoRoot();
    String rendered = run(List.of(repo.resolve(".tools/bin/helm").toString(), "template", "gshare",
        repo.resolve("charts/gshare").toString(), "-n", "gshare-system", "--set", "ingress.internalPlane.enabled=true",
        "--set", "ingress.internalPlane.sourceRange=10.0.0.0/8", "--show-only", "templates/ingress.yaml"), null);
    String internal = List.of(rendered.split("(?m)^---\\s*$")).stream().filter(d -> d.contains("name: gshare-internal\n"))
        .findFirst().orElseThrow();
    assertThat(internal).contains("10.0.0.0/8");
    Matcher path = Pattern.compile("(?m)^\\s+- path: (\\S+)$").matcher(internal);
    List<String> paths = new ArrayList<>();
    while (path.find()) {
      paths.add(path.group(1));
    }
    assertThat(paths).containsExactlyInAnyOrder("/internal", "/.well-known");
  }
}
