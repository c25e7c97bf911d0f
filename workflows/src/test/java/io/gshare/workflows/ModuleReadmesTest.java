package io.gshare.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The module READMEs stay true: each one's "May depend on" names the gShare modules its {@code pom.xml} depends on,
 * for its main code and for its tests, and every test class a README names exists.
 */
class ModuleReadmesTest {

  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final Pattern BACKTICKED = Pattern.compile("`([^`]+)`");
  private static final Pattern TEST_CLASS = Pattern.compile("`([A-Z][A-Za-z0-9]*(?:Test|IT))\\b");

  @Test
  void eachModuleReadmeNamesTheGshareModulesItsPomDependsOn() throws Exception {
    List<String> modules = modules();
    assertThat(modules).contains("api", "cluster-worker", "workflows");
    for (String module : modules) {
      Path readme = ROOT.resolve(module).resolve("README.md");
      assertThat(readme).as("every module has a README").exists();
      String section = section(Files.readString(readme), "## May depend on")
          .orElseThrow(() -> new AssertionError(readme + " has no \"## May depend on\" section"));
      Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder()
          .parse(ROOT.resolve(module).resolve("pom.xml").toFile());
      assertThat(listed(section, "- main:", readme)).as("%s: main", readme).isEqualTo(gshareDependencies(pom, false));
      assertThat(listed(section, "- tests:", readme)).as("%s: tests", readme).isEqualTo(gshareDependencies(pom, true));
    }
  }

  @Test
  void everyTestClassAReadmeNamesExists() throws Exception {
    Set<String> testClasses = new TreeSet<>();
    for (String module : modules()) {
      Path tests = ROOT.resolve(module).resolve("src/test/java");
      if (Files.isDirectory(tests)) {
        try (Stream<Path> files = Files.walk(tests)) {
          files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".java"))
              .forEach(n -> testClasses.add(n.substring(0, n.length() - ".java".length())));
        }
      }
    }
    assertThat(testClasses).contains("ModuleReadmesTest");
    List<Path> readmes = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    for (String module : modules()) {
      readmes.add(ROOT.resolve(module).resolve("README.md"));
    }
    for (Path readme : readmes) {
      Matcher named = TEST_CLASS.matcher(Files.readString(readme));
      while (named.find()) {
        assertThat(testClasses).as("%s names %s", ROOT.relativize(readme), named.group(1)).contains(named.group(1));
      }
    }
  }

  private static List<String> modules() throws Exception {
    Document root = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(ROOT.resolve("pom.xml").toFile());
    NodeList nodes = root.getElementsByTagName("module");
    List<String> modules = new ArrayList<>();
    for (int i = 0; i < nodes.getLength(); i++) {
      modules.add(nodes.item(i).getTextContent().trim());
    }
    return modules;
  }

  /** The text from the heading to the next heading of its level. */
  private static Optional<String> section(String markdown, String heading) {
    int start = markdown.indexOf(heading + "\n");
    if (start < 0) {
      return Optional.empty();
    }
    int end = markdown.indexOf("\n## ", start + heading.length());
    return Optional.of(markdown.substring(start, end < 0 ? markdown.length() : end));
  }

  /** The backticked names on the line that starts with the label; "none" lists none. */
  private static Set<String> listed(String section, String label, Path readme) {
    String line = section.lines().filter(l -> l.startsWith(label)).findFirst()
        .orElseThrow(() -> new AssertionError(readme + ": no \"" + label + "\" line under \"## May depend on\""));
    Set<String> names = new TreeSet<>();
    Matcher m = BACKTICKED.matcher(line);
    while (m.find()) {
      names.add(m.group(1));
    }
    if (names.isEmpty()) {
      assertThat(line.substring(label.length()).trim()).as(readme + ": " + line).isEqualTo("none");
    }
    return names;
  }

  /** The gShare artifacts among the POM's own dependencies: test scope, or every other scope. */
  private static Set<String> gshareDependencies(Document pom, boolean testScope) {
    Set<String> names = new TreeSet<>();
    Element dependencies = child(pom.getDocumentElement(), "dependencies");
    if (dependencies == null) {
      return names;
    }
    for (Node node = dependencies.getFirstChild(); node != null; node = node.getNextSibling()) {
      if (node instanceof Element dependency && dependency.getTagName().equals("dependency")) {
        String group = text(dependency, "groupId");
        boolean test = "test".equals(text(dependency, "scope"));
        if (("io.gshare".equals(group) || "${project.groupId}".equals(group)) && test == testScope) {
          names.add(text(dependency, "artifactId"));
        }
      }
    }
    return names;
  }

  private static Element child(Element parent, String name) {
    for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
      if (node instanceof Element e && e.getTagName().equals(name)) {
        return e;
      }
    }
    return null;
  }

  private static String text(Element parent, String name) {
    Element e = child(parent, name);
    return e == null ? null : e.getTextContent().trim();
  }
}
