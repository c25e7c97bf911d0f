package io.gshare.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The domain module knows neither HTTP nor Temporal workers, and its features do not import each other in a cycle. */
class CoreArchitectureTest {

  private static final JavaClasses CORE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.gshare.core");

  @Test
  void coreSeesNoWebLayerNoWorkerAndNoDeployable() {
    assertThat(CORE).isNotEmpty();
    noClasses().should().dependOnClassesThat().resideInAnyPackage(
            "org.springframework.web..", "jakarta.servlet..", "io.temporal.worker..", "io.temporal.client..",
            "io.gshare.api..", "io.gshare.activities..", "io.gshare.clusterworker..", "io.fabric8..")
        .check(CORE);
  }

  @Test
  void corePackagesHaveNoCycles() {
    slices().matching("io.gshare.core.(*)..").should().beFreeOfCycles().check(CORE);
  }
}
