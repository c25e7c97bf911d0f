package io.gshare.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarInputStream;
import org.junit.jupiter.api.Test;

/**
 * The api's jar as it ships (the runnable jar {@code package} made) carries no dev-only class: the local-process
 * deployer is the local-deployer module's, which only the dev runtime and the tests put on the class path.
 */
class ApiJarIT {

  private static final List<String> DEV_ONLY = List.of("LocalProcessWorkerDeployer", "ProjectedTokens", "JarLaunch",
      "LocalProcessDeployers");

  @Test
  void theJarCarriesTheControlActivitiesAndNoDevOnlyClass() throws IOException {
    Path jar = Path.of("target", "gshare-api.jar");
    assertThat(jar).exists();
    List<String> libraries = new ArrayList<>();
    List<String> classes = new ArrayList<>();
    try (JarFile file = new JarFile(jar.toFile())) {
      for (JarEntry entry : file.stream().toList()) {
        String name = entry.getName();
        if (name.endsWith(".class")) {
          classes.add(name);
        } else if (name.startsWith("BOOT-INF/lib/gshare-") && name.endsWith(".jar")) {
          libraries.add(name);
          try (JarInputStream nested = new JarInputStream(file.getInputStream(entry))) {
            for (JarEntry inner = nested.getNextJarEntry(); inner != null; inner = nested.getNextJarEntry()) {
              classes.add(name + "!/" + inner.getName());
            }
          }
        }
      }
    }
    assertThat(libraries).anyMatch(l -> l.contains("gshare-control-activities-"))
        .noneMatch(l -> l.contains("gshare-local-deployer"));
    assertThat(classes).anyMatch(c -> c.endsWith("/KubernetesWorkerDeployer.class"))
        .noneMatch(c -> DEV_ONLY.stream().anyMatch(d -> c.endsWith("/" + d + ".class")));
  }
}
