package io.gshare.api.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gshare.activities.control.ActivitiesOn;
import io.gshare.workflows.common.TaskQueues;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

/** The control worker serves the beans that say they belong on the control queue, and refuses any other queue. */
class ControlWorkerTest {

  @ActivitiesOn(taskQueue = TaskQueues.CONTROL)
  static class OnControl {}

  @ActivitiesOn(taskQueue = "gshare-elsewhere")
  static class Elsewhere {}

  static class NotAnActivity {}

  @Test
  void theBeansMarkedForTheControlQueueAreItsActivitiesAndNoOthers() {
    StaticListableBeanFactory beans = new StaticListableBeanFactory();
    OnControl control = new OnControl();
    beans.addBean("onControl", control);
    beans.addBean("notAnActivity", new NotAnActivity());
    assertThat(ControlWorker.controlActivities(beans)).containsExactly(control);
  }

  @Test
  void aBeanMarkedForAnotherQueueStopsTheStartAndSaysWhy() {
    StaticListableBeanFactory beans = new StaticListableBeanFactory();
    beans.addBean("onControl", new OnControl());
    beans.addBean("elsewhere", new Elsewhere());
    assertThatThrownBy(() -> ControlWorker.controlActivities(beans)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("elsewhere").hasMessageContaining("gshare-elsewhere")
        .hasMessageContaining(TaskQueues.CONTROL);
  }
}
