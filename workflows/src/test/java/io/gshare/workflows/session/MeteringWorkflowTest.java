package io.gshare.workflows.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
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

/** The metering sweep's signals: a session whose workflow ended is skipped, the others are told. */
class MeteringWorkflowTest {

  /** Stands in for a session's workflow: takes the same {@code creditsExhausted} signal. */
  @WorkflowInterface
  public interface CreditsListener {
    @WorkflowMethod
    boolean waitForCredits();

    @SignalMethod(name = "creditsExhausted")
    void creditsExhausted();
  }

  public static class CreditsListenerImpl implements CreditsListener {
    private boolean exhausted;

    @Override
    public boolean waitForCredits() {
      Workflow.await(Duration.ofHours(1), () -> exhausted);
      return exhausted;
    }

    @Override
    public void creditsExhausted() {
      exhausted = true;
    }
  }

  @RegisterExtension
  static final TestWorkflowExtension testWorkflow = TestWorkflowExtension.newBuilder()
      .registerWorkflowImplementationTypes(MeteringWorkflowImpl.class, CreditsListenerImpl.class)
      .setDoNotStart(true)
      .build();

  @Test
  void aSessionWhoseWorkflowEndedIsSkippedAndTheSweepEnds(TestWorkflowEnvironment env, WorkflowClient client,
      Worker worker) {
    MeteringActivities activities = mock(MeteringActivities.class, withSettings().withoutAnnotations());
    when(activities.chargeOpenWindows(MeteringWorkflowImpl.BATCH))
        .thenReturn(new MeteringResult(7, List.of("ses_gone", "ses_live")));
    env.newWorker(TaskQueues.CONTROL).registerActivitiesImplementations(activities);
    env.start();
    CreditsListener live = client.newWorkflowStub(CreditsListener.class, WorkflowOptions.newBuilder()
        .setWorkflowId(WorkflowIds.session("ses_live")).setTaskQueue(worker.getTaskQueue()).build());
    WorkflowClient.start(live::waitForCredits);

    int charged = client.newWorkflowStub(MeteringWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(MeteringWorkflow.ID).setTaskQueue(worker.getTaskQueue()).build()).sweep();

    assertThat(charged).isEqualTo(7);
    assertThat(WorkflowStub.fromTyped(live).getResult(Boolean.class)).isTrue();
    // The new behaviour is recorded under its version marker, so histories from before it replay as they ran.
    assertThat(client.fetchHistory(MeteringWorkflow.ID).getEvents()).anyMatch(e -> e.hasMarkerRecordedEventAttributes());
  }
}
