package io.gshare.api.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcOperations;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.RestController;

/**
 * Controllers speak HTTP and hand the rest to services and the domain (core): no SQL in a controller,
 * and none anywhere else in the api either, since the SQL's one home is core's repositories. The api's feature
 * packages depend on one another without cycles.
 */
class ApiArchitectureTest {

  private static final JavaClasses API = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.gshare.api");

  private static final Class<?>[] JDBC = {JdbcClient.class, JdbcTemplate.class, JdbcOperations.class,
      NamedParameterJdbcTemplate.class, NamedParameterJdbcOperations.class};

  /**
   * The api starts, signals and queries workflows; a cluster's apiserver is called by control activities only (a
   * kubeconfig's proof included: {@code KubeconfigProof}). Their wiring ({@code *ActivitiesConfig}) may name them.
   */
  @Test
  void noRequestPathCallsAnApiserver() {
    noClasses().that().haveSimpleNameNotEndingWith("ActivitiesConfig")
        .should().dependOnClassesThat().belongToAnyOf(io.fabric8.kubernetes.client.KubernetesClient.class,
            io.fabric8.kubernetes.client.KubernetesClientBuilder.class,
            io.gshare.activities.control.ClusterRemoteActivitiesImpl.class)
        .because("an apiserver call belongs in an activity, with its timeout and retries, not on a request thread")
        .check(API);
  }

  @Test
  void noControllerTouchesJdbc() {
    assertThat(API.stream().filter(c -> c.isAnnotatedWith(RestController.class))).hasSizeGreaterThan(10);
    noClasses().that().areAnnotatedWith(RestController.class)
        .should().dependOnClassesThat().belongToAnyOf(JDBC)
        .check(API);
  }

  /** No exceptions: the audit log, the /internal reports, the liveness sweep and billing windows are core's. */
  @Test
  void noApiClassTouchesJdbc() {
    assertThat(API).hasSizeGreaterThan(100);
    noClasses().that().resideInAPackage("io.gshare.api..")
        .should().dependOnClassesThat().belongToAnyOf(JDBC)
        .because("SQL lives in core's repositories")
        .check(API);
  }

  /**
   * Each first-level package of the api (a feature: session, signin, security, error, ...) with its subpackages is
   * one slice, and no slice reaches back to one that reaches it: a package can be read, moved or split by itself.
   * The filter chains' wiring ({@code security}) takes the sign-in's beans by Spring Security's own interfaces.
   */
  @Test
  void theApisPackagesAreFreeOfCycles() {
    slices().matching("io.gshare.api.(*)..").should().beFreeOfCycles().check(API);
  }
}
