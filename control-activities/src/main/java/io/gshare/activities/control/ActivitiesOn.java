package io.gshare.activities.control;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The task queue an activity implementation is served on. The api's control worker registers every bean whose class
 * carries it (as the Temporal Spring Boot samples' {@code @ActivityImpl(taskQueues = ...)} does), so a new control
 * activity is a class with this annotation and a bean, not a line in a hand-kept list.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface ActivitiesOn {

  /** One of {@link io.gshare.workflows.common.TaskQueues}' fixed queues. */
  String taskQueue();
}
