package io.gshare.api.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.RestController;

/** Controllers speak HTTP and hand the rest to services and the domain (core): no SQL in a controller. */
class ApiArchitectureTest {

  private static final JavaClasses API = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.gshare.api");

  @Test
  void noControllerTouchesJdbc() {
    assertThat(API.stream().filter(c -> c.isAnnotatedWith(RestController.class))).hasSizeGreaterThan(10);
    noClasses().that().areAnnotatedWith(RestController.class)
        .should().dependOnClassesThat().belongToAnyOf(JdbcClient.class, org.springframework.jdbc.core.JdbcTemplate.class)
        .check(API);
  }
}
