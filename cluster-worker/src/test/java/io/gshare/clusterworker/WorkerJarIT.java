package io.gshare.clusterworker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The cluster-worker's jar as it ships (the runnable jar {@code package} made): the data plane's activities and
 * the fabric8 client, and nothing of the control plane's database or domain.
 */
class WorkerJarIT {

  private static final String LIB = "BOOT-INF/lib/";

  @Test
  void theJarCarriesTheClusterActivitiesAndNoDatabaseCoreOrControlActivities() throws IOException {
    Path jar = Path.of("target", "gshare-cluster-worker.jar");
    assertThat(jar).exists();
    List<String> libraries;
    try (JarFile file = new JarFile(jar.toFile())) {
      libraries = file.stream().map(JarEntry::getName).filter(n -> n.startsWith(LIB) && n.length() > LIB.length())
          .map(n -> n.substring(LIB.length())).toList();
    }
    assertThat(libraries)
        .anyMatch(l -> l.startsWith("gshare-cluster-activities-"))
        .anyMatch(l -> l.startsWith("kubernetes-client-"))
        .noneMatch(l -> l.startsWith("gshare-core-"))
        .noneMatch(l -> l.startsWith("gshare-control-activities-"))
        .noneMatch(l -> l.startsWith("postgresql-"))
        .noneMatch(l -> l.startsWith("spring-jdbc-"))
        .noneMatch(l -> l.startsWith("HikariCP-"));
  }
}
