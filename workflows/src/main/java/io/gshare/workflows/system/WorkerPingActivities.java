package io.gshare.workflows.system;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * Implemented by every gShare worker on its own queue. Answering proves that a live worker polls
 * that queue, which the embedded Temporal server cannot tell otherwise (it has no DescribeTaskQueue).
 */
@ActivityInterface
public interface WorkerPingActivities {

  @ActivityMethod(name = "WorkerPing")
  WorkerIdentity ping();
}
