package io.gshare.activities.system;

import io.gshare.workflows.system.WorkerIdentity;
import io.gshare.workflows.system.WorkerPingActivities;

/** Answers a ping with who this worker is; registered by every gShare worker on its own queue. */
public class WorkerPingActivitiesImpl implements WorkerPingActivities {

  private final WorkerIdentity identity;

  public WorkerPingActivitiesImpl(WorkerIdentity identity) {
    this.identity = identity;
  }

  @Override
  public WorkerIdentity ping() {
    return identity;
  }
}
