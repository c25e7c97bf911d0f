package io.gshare.activities.system;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.workflows.system.WorkerIdentity;
import io.gshare.workflows.system.WorkerPingActivities;
import io.temporal.testing.TestActivityEnvironment;
import org.junit.jupiter.api.Test;

class WorkerPingActivitiesImplTest {

  @Test
  void answersWithTheWorkersIdentity() {
    TestActivityEnvironment env = TestActivityEnvironment.newInstance();
    WorkerIdentity me = new WorkerIdentity("7@node", "cluster-worker", "0.1.0");
    env.registerActivitiesImplementations(new WorkerPingActivitiesImpl(me));

    assertThat(env.newActivityStub(WorkerPingActivities.class).ping()).isEqualTo(me);
    env.close();
  }
}
