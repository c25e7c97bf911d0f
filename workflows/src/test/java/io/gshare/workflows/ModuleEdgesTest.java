package io.gshare.workflows;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The module edges of DESIGN.md: {@code workflows} sees the Temporal SDK alone, and no module depends
 * on the deployables {@code api} or {@code cluster-worker}.
 */
class ModuleEdgesTest {

  private static final JavaClasses WORKFLOW_CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.gshare.workflows");

  /**
   * Jackson's annotations only (not its databind): Temporal's payload converter is Jackson, and a typed value that
   * replaced a string in payloads keeps the string's spelling with {@code @JsonValue}/{@code @JsonCreator}.
   */
  @Test
  void workflowCodeSeesOnlyTheJdkAndTheTemporalSdk() {
    assertThat(WORKFLOW_CLASSES).isNotEmpty();
    classes()
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "io.temporal..", "io.gshare.workflows..", "org.slf4j..",
            "com.fasterxml.jackson.annotation..")
        .check(WORKFLOW_CLASSES);
  }

  /**
   * The Kubernetes vocabulary (label keys, names) is what the simulator takes from this module, without
   * the Temporal SDK (its pom excludes it): so the package sees the JDK alone.
   */
  @Test
  void theKubernetesVocabularySeesOnlyTheJdk() {
    classes()
        .that()
        .resideInAPackage("io.gshare.workflows.kube..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "io.gshare.workflows.kube..")
        .check(WORKFLOW_CLASSES);
  }

  @Test
  void workflowImplementationsAvoidClocksRandomnessAndThreads() {
    noClasses()
        .that()
        .haveSimpleNameEndingWith("WorkflowImpl")
        .should()
        .callMethod(System.class, "currentTimeMillis")
        .orShould()
        .callMethod(System.class, "nanoTime")
        .orShould()
        .callMethod(Instant.class, "now")
        .orShould()
        .callMethod(UUID.class, "randomUUID")
        .orShould()
        .dependOnClassesThat()
        .belongToAnyOf(Thread.class, Random.class, ExecutorService.class)
        .check(WORKFLOW_CLASSES);
  }

  /**
   * The rest of the SDK's workflow constraints (what temporal-workflowcheck looks for; it is not
   * published for this SDK version): no I/O, no configuration, no wall clocks of any kind, no blocking
   * or locking of the JDK's own.
   */
  @Test
  void workflowImplementationsDoNoIoReadNoConfigurationAndBlockOnlyThroughWorkflow() {
    noClasses()
        .that()
        .haveSimpleNameEndingWith("WorkflowImpl")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("java.io..", "java.nio..", "java.net..", "java.sql..", "java.util.concurrent..")
        .orShould()
        .callMethod(System.class, "getenv", String.class)
        .orShould()
        .callMethod(System.class, "getenv")
        .orShould()
        .callMethod(System.class, "getProperty", String.class)
        .orShould()
        .callMethod(Math.class, "random")
        .orShould()
        .callMethod(Thread.class, "sleep", long.class)
        .orShould()
        .callMethod(LocalDateTime.class, "now")
        .orShould()
        .callMethod(ZonedDateTime.class, "now")
        .orShould()
        .callMethod(OffsetDateTime.class, "now")
        .orShould()
        .dependOnClassesThat()
        .belongToAnyOf(Clock.class)
        .check(WORKFLOW_CLASSES);
  }

  @Test
  void workflowPackagesHaveNoCycles() {
    SlicesRuleDefinition.slices()
        .matching("io.gshare.workflows.(*)..").should().beFreeOfCycles().check(WORKFLOW_CLASSES);
  }

  @Test
  void pomEdgesMatchTheDesign() throws Exception {
    Path root = Path.of("").toAbsolutePath().getParent();
    Map<String, List<String>> dependenciesByModule = new LinkedHashMap<>();
    for (String module : childElements(parse(root.resolve("pom.xml")), "modules", "module")) {
      Document pom = parse(root.resolve(module).resolve("pom.xml"));
      String artifactId = directChildText(pom.getDocumentElement(), "artifactId");
      dependenciesByModule.put(artifactId, compileDependencies(pom));
    }
    assertThat(dependenciesByModule).containsKeys("gshare-workflows", "gshare-internal-contract", "gshare-api",
        "gshare-cluster-worker");

    assertThat(dependenciesByModule.get("gshare-workflows")).containsExactly("io.temporal:temporal-sdk");
    assertThat(dependenciesByModule.get("gshare-core")).as("core: the domain on spring-jdbc, no web, no worker")
        .doesNotContain("io.gshare:gshare-control-activities", "io.gshare:gshare-cluster-activities",
            "org.springframework:spring-web", "org.springframework:spring-webmvc",
            "org.springframework.boot:spring-boot-starter-web");
    // The /internal wire records: Jackson's naming annotations and Bean Validation's, no framework.
    assertThat(dependenciesByModule.get("gshare-internal-contract"))
        .containsExactlyInAnyOrder("com.fasterxml.jackson.core:jackson-databind", "jakarta.validation:jakarta.validation-api");
    // The simulator takes workflows for its label keys only (JDK-only, see above), and not the Temporal SDK.
    assertThat(dependenciesByModule.get("gshare-cluster-sim")).filteredOn(d -> d.startsWith("io.gshare:"))
        .containsExactly("io.gshare:gshare-workflows");
    assertThat(exclusionsOf(parse(root.resolve("cluster-sim").resolve("pom.xml")), "io.gshare:gshare-workflows"))
        .containsExactly("io.temporal:temporal-sdk");
    // The planes are artifacts: what runs in a cluster sees no database and no core (issue: the worker jar shipped
    // core, spring-jdbc and the PostgreSQL driver when one module held both planes' activities).
    assertThat(dependenciesByModule.get("gshare-cluster-activities")).as("the data plane's activities")
        .filteredOn(d -> d.startsWith("io.gshare:")).containsExactly("io.gshare:gshare-workflows");
    assertThat(dependenciesByModule.get("gshare-cluster-activities")).doesNotContain("org.springframework:spring-jdbc");
    assertThat(dependenciesByModule.get("gshare-cluster-worker")).as("the cluster-worker")
        .doesNotContain("io.gshare:gshare-core", "io.gshare:gshare-control-activities",
            "org.springframework:spring-jdbc", "org.postgresql:postgresql");
    dependenciesByModule.forEach(
        (module, deps) ->
            assertThat(deps)
                .as("%s must not depend on a deployable, nor ship the dev-only local deployer", module)
                .doesNotContain("io.gshare:gshare-api", "io.gshare:gshare-cluster-worker", "io.gshare:gshare-local-deployer"));
  }

  private static Document parse(Path pom) throws Exception {
    assertThat(pom).exists();
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Files.newInputStream(pom));
  }

  private static List<String> compileDependencies(Document pom) {
    List<String> result = new ArrayList<>();
    Element dependencies = directChild(pom.getDocumentElement(), "dependencies");
    if (dependencies == null) {
      return result;
    }
    NodeList nodes = dependencies.getElementsByTagName("dependency");
    for (int i = 0; i < nodes.getLength(); i++) {
      Element dep = (Element) nodes.item(i);
      String scope = directChildText(dep, "scope");
      // Anything the module's main code can see counts as an edge.
      if (scope == null || scope.equals("compile") || scope.equals("runtime") || scope.equals("provided")) {
        result.add(directChildText(dep, "groupId") + ":" + directChildText(dep, "artifactId"));
      }
    }
    return result;
  }

  private static List<String> exclusionsOf(Document pom, String dependency) {
    List<String> result = new ArrayList<>();
    NodeList nodes = directChild(pom.getDocumentElement(), "dependencies").getElementsByTagName("dependency");
    for (int i = 0; i < nodes.getLength(); i++) {
      Element dep = (Element) nodes.item(i);
      if (dependency.equals(directChildText(dep, "groupId") + ":" + directChildText(dep, "artifactId"))) {
        NodeList exclusions = dep.getElementsByTagName("exclusion");
        for (int j = 0; j < exclusions.getLength(); j++) {
          Element e = (Element) exclusions.item(j);
          result.add(directChildText(e, "groupId") + ":" + directChildText(e, "artifactId"));
        }
      }
    }
    return result;
  }

  private static List<String> childElements(Document doc, String parent, String child) {
    List<String> values = new ArrayList<>();
    NodeList nodes = directChild(doc.getDocumentElement(), parent).getElementsByTagName(child);
    for (int i = 0; i < nodes.getLength(); i++) {
      values.add(nodes.item(i).getTextContent().trim());
    }
    return values;
  }

  private static Element directChild(Element parent, String name) {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e;
      }
    }
    return null;
  }

  private static String directChildText(Element parent, String name) {
    Element e = directChild(parent, name);
    return e == null ? null : e.getTextContent().trim();
  }
}
