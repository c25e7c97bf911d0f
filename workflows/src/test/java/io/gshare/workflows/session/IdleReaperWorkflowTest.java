package io.gshare.workflows.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.TestWorkflowExtension;
import io.temporal.worker.Worker;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The sweep's workflow with the test server's time skipping: the decisions are the activity's (mocked here). */
class IdleReaperWorkflowTest {

  /** Stands in for a session's workflow: takes the same {@code idle} signal and returns its reason. */
  @WorkflowInterface
  public interface IdleSignalListener {
    @WorkflowMethod
    String waitForIdle();

    @SignalMethod(name = "idle")
    void idle(String reason);
  }

  public static class IdleSignalListenerImpl implements IdleSignalListener {
    private String reason;

    @Override
    public String waitForIdle() {
      Workflow.await(Duration.ofHours(1), () -> reason != null);
      return reason == null ? "no signal" : reason;
    }

    @Override
    public void idle(String reason) {
      this.reason = reason;
    }
  }

  @RegisterExtension
  static final TestWorkflowExtension testWorkflow = TestWorkflowExtension.newBuilder()
      .registerWorkflowImplementationTypes(IdleReaperWorkflowImpl.class, IdleSignalListenerImpl.class)
      .setDoNotStart(true)
      .build();

  @Test
  void eachSessionToPauseIsSignalledWithItsReasonAndAnEndedOneDoesNotStopTheSweep(TestWorkflowEnvironment env,
      WorkflowClient client, Worker worker) {
    IdleReaperActivities activities = mock(IdleReaperActivities.class, withSettings().withoutAnnotations());
    IdleSweep decided = new IdleSweep(5, 3, 2, List.of(new IdleSweep.Pause("ses_gone", "idle for 31 minutes by hami"),
        new IdleSweep.Pause("ses_idle", "idle for 30 minutes by dcgm")));
    when(activities.sweepIdleSessions()).thenReturn(decided);
    env.newWorker(TaskQueues.CONTROL).registerActivitiesImplementations(activities);
    env.start();

    IdleSignalListener session = client.newWorkflowStub(IdleSignalListener.class, WorkflowOptions.newBuilder()
        .setWorkflowId(WorkflowIds.session("ses_idle")).setTaskQueue(worker.getTaskQueue()).build());
    WorkflowClient.start(session::waitForIdle);
    IdleReaperWorkflow reaper = client.newWorkflowStub(IdleReaperWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(WorkflowIds.IDLE_REAPER).setTaskQueue(worker.getTaskQueue()).build());

    assertThat(reaper.sweep()).isEqualTo(decided);
    assertThat(WorkflowStub.fromTyped(session).getResult(String.class)).isEqualTo("idle for 30 minutes by dcgm");
  }

  @Test
  void aFailedDecisionIsRetriedAndNothingIsSignalledTwice(TestWorkflowEnvironment env, WorkflowClient client, Worker worker) {
    IdleReaperActivities activities = mock(IdleReaperActivities.class, withSettings().withoutAnnotations());
    when(activities.sweepIdleSessions()).thenThrow(new IllegalStateException("database restarting"))
        .thenReturn(new IdleSweep(1, 0, 0, List.of()));
    env.newWorker(TaskQueues.CONTROL).registerActivitiesImplementations(activities);
    env.start();

    IdleSweep sweep = client.newWorkflowStub(IdleReaperWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(WorkflowIds.IDLE_REAPER).setTaskQueue(worker.getTaskQueue()).build()).sweep();

    assertThat(sweep.pauses()).isEmpty();
    verify(activities, times(2)).sweepIdleSessions();
  }
}
