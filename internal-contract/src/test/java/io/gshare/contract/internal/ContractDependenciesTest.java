package io.gshare.contract.internal;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The wire records are a contract both deployables link against: they see the JDK, Jackson's annotations
 * (and the snake_case strategy that {@link WireJson} names) and the Bean Validation annotations, nothing else.
 */
class ContractDependenciesTest {

  private static final JavaClasses CONTRACT = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.gshare.contract.internal");

  @Test
  void recordsSeeOnlyTheJdkAndAnnotations() {
    assertThat(CONTRACT).isNotEmpty();
    classes()
        .should()
        .onlyDependOnClassesThat(resideInAnyPackage("java..", "com.fasterxml.jackson.annotation..",
                "com.fasterxml.jackson.databind.annotation..", "jakarta.validation..", "io.gshare.contract.internal..")
            .or(nameMatching("com\\.fasterxml\\.jackson\\.databind\\.PropertyNamingStrategies(\\$.*)?")))
        .check(CONTRACT);
  }
}
