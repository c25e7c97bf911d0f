package io.gshare.workflows.system;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * Implemented by every gShare worker on its own queue. Answering proves that a live worker of the
 * right cluster polls that queue and can run activities, which a poller list alone does not: the
 * attach workflow waits on it.
 */
@ActivityInterface
public interface WorkerPingActivities {

  @ActivityMethod(name = "WorkerPing")
  WorkerIdentity ping();
}
