package io.gshare.workflows.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.OperationStatus;
import io.gshare.workflows.common.OperationStep;
import io.gshare.workflows.common.StepStatus;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.session.SessionReroute;
import io.gshare.workflows.session.SessionRerouteOutcome;
import io.gshare.workflows.session.SessionRoute;
import io.gshare.workflows.session.SessionState;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.TestWorkflowExtension;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mockito.ArgumentCaptor;

class ClusterRerouteWorkflowTest {

  private static final SessionReroute CHANGE = new SessionReroute("gshare.new.example.com", SessionRoute.INGRESS_NGINX);

  @RegisterExtension
  static final TestWorkflowExtension testWorkflow = TestWorkflowExtension.newBuilder()
      .registerWorkflowImplementationTypes(ClusterRerouteWorkflowImpl.class)
      .setDoNotStart(true)
      .build();

  private final ClusterRerouteActivities activities =
      mock(ClusterRerouteActivities.class, withSettings().withoutAnnotations());

  private ClusterRerouteWorkflow start(TestWorkflowEnvironment env, Worker worker) {
    env.newWorker(TaskQueues.CONTROL).registerActivitiesImplementations(activities);
    env.start();
    return env.getWorkflowClient().newWorkflowStub(ClusterRerouteWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId("cluster-reroute-clu_a").setTaskQueue(worker.getTaskQueue()).build());
  }

  private static SessionRerouteOutcome moved(String id) {
    return new SessionRerouteOutcome(id, SessionState.RUNNING, "https://gshare.new.example.com/s/" + id + "/",
        "moved to https://gshare.new.example.com/s/" + id + "/", true);
  }

  private static Map<String, OperationStep> steps(OperationProgress progress) {
    return progress.steps().stream().collect(Collectors.toMap(OperationStep::name, s -> s));
  }

  @Test
  void everyLiveSessionIsAStepAndTheOperationCompletesWhenAllMoved(TestWorkflowEnvironment env, Worker worker) {
    when(activities.liveSessions("clu_a")).thenReturn(List.of("ses_a", "ses_b"));
    when(activities.rerouteSession("ses_a", CHANGE)).thenReturn(moved("ses_a"));
    when(activities.rerouteSession("ses_b", CHANGE)).thenReturn(new SessionRerouteOutcome("ses_b", SessionState.PAUSED,
        null, "not running: it starts on gshare.new.example.com when resumed", true));

    OperationProgress done = start(env, worker).reroute(new ClusterRerouteRequest("clu_a", CHANGE));

    assertThat(done.status()).isEqualTo(OperationStatus.COMPLETED);
    assertThat(steps(done).get("move session ses_a").detail()).isEqualTo("moved to https://gshare.new.example.com/s/ses_a/");
    assertThat(steps(done).get("move session ses_b").status()).isEqualTo(StepStatus.DONE);
    verify(activities).recordOperation(any());
  }

  @Test
  void aSessionNotMovedFailsItsStepNotTheOthersAndTheOperationNamesIt(TestWorkflowEnvironment env, Worker worker) {
    when(activities.liveSessions("clu_a")).thenReturn(List.of("ses_a", "ses_b"));
    when(activities.rerouteSession("ses_a", CHANGE)).thenReturn(new SessionRerouteOutcome("ses_a", SessionState.RUNNING,
        "https://gshare.old.example.com/s/ses_a/", "the new session domain could not be routed: forbidden", false));
    when(activities.rerouteSession("ses_b", CHANGE)).thenReturn(moved("ses_b"));

    ClusterRerouteWorkflow workflow = start(env, worker);
    assertThatThrownBy(() -> workflow.reroute(new ClusterRerouteRequest("clu_a", CHANGE)))
        .isInstanceOf(WorkflowFailedException.class);

    ArgumentCaptor<OperationProgress> recorded = ArgumentCaptor.forClass(OperationProgress.class);
    verify(activities).recordOperation(recorded.capture());
    OperationProgress failed = recorded.getValue();
    assertThat(failed.status()).isEqualTo(OperationStatus.FAILED);
    assertThat(failed.error()).contains("1 of 2").contains("ses_a");
    assertThat(steps(failed).get("move session ses_a").status()).isEqualTo(StepStatus.FAILED);
    assertThat(steps(failed).get("move session ses_b").status()).isEqualTo(StepStatus.DONE);
    verify(activities).rerouteSession(eq("ses_b"), eq(CHANGE));
  }
}
