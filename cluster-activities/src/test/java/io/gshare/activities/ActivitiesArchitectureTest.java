package io.gshare.activities;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The desired state of a cluster's objects is a pure function (STYLE.md §6): {@code cluster.model} builds
 * fabric8 model objects and never holds the client that sends them.
 */
class ActivitiesArchitectureTest {

  private static final JavaClasses MODEL = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.gshare.activities.cluster.model");

  @Test
  void theModelSeesOnlyFabric8sModelAndGsharesRecords() {
    assertThat(MODEL).isNotEmpty();
    classes()
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "io.fabric8.kubernetes.api.model..", "io.gshare.workflows..",
            "io.gshare.activities.cluster.model..")
        .check(MODEL);
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.fabric8.kubernetes.client..")
        .check(MODEL);
  }
}
