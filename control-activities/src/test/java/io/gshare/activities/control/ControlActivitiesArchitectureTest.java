package io.gshare.activities.control;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.gshare.workflows.common.TaskQueues;
import io.temporal.activity.ActivityInterface;
import org.junit.jupiter.api.Test;

/** Every control activity implementation says where it is served, which is how the api's worker finds it. */
class ControlActivitiesArchitectureTest {

  private static final JavaClasses CLASSES = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.gshare.activities.control");

  private static final DescribedPredicate<JavaClass> IMPLEMENT_AN_ACTIVITY_INTERFACE =
      DescribedPredicate.describe("implement an @ActivityInterface", c -> c.getAllRawInterfaces().stream()
          .anyMatch(i -> i.isAnnotatedWith(ActivityInterface.class)));

  @Test
  void everyActivityImplementationNamesItsTaskQueue() {
    assertThat(CLASSES.stream().filter(IMPLEMENT_AN_ACTIVITY_INTERFACE)).hasSizeGreaterThanOrEqualTo(11);
    classes().that(IMPLEMENT_AN_ACTIVITY_INTERFACE).and().areNotInterfaces()
        .should().beAnnotatedWith(ActivitiesOn.class).check(CLASSES);
  }

  @Test
  void theQueueTheyNameIsTheControlQueue() {
    CLASSES.stream().filter(c -> c.isAnnotatedWith(ActivitiesOn.class)).forEach(c ->
        assertThat(c.getAnnotationOfType(ActivitiesOn.class).taskQueue()).as(c.getName()).isEqualTo(TaskQueues.CONTROL));
  }
}
